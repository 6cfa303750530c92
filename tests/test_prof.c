/*
 * tests/test_prof.c - pins "Profiling" (docs/SEMANTICS.md): the order of
 * aclprofInit, aclprofStart, aclprofStop and aclprofFinalize and their
 * codes, bad paths and configurations, and the Chrome trace a session
 * writes: the tasks of the profiled devices on every stream, each once,
 * with times inside the session and in stream order, and nothing of the
 * devices or the times it does not profile. Runs with two host devices;
 * the trace is read back with jsmn, as a program reading JSON would.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "acl/acl_prof.h"

#include <dirent.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

static char base_dir[256];
static int dir_serial;

/* A fresh, not yet existing directory under the test's scratch directory. */
static const char *fresh_dir(char *buf, size_t n)
{
    snprintf(buf, n, "%s/d%d", base_dir, dir_serial++);
    return buf;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The one trace file in dir (its path in `out`); the count of trace files. */
static int trace_files(const char *dir, char *out, size_t n)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "aclrt_trace_", 12) == 0 && len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
            snprintf(out, n, "%s/%s", dir, e->d_name);
            count++;
        }
    }
    closedir(d);
    return count;
}

/* ------------------------------------------------------------------------
 * The trace, parsed
 * ------------------------------------------------------------------------ */

struct ev {
    char name[32];
    char ph;
    long pid, tid;
    double ts, dur;
};

#define MAX_EVS 256
static struct ev evs[MAX_EVS];
static int nevs;
static char json[1 << 20];
static jsmntok_t toks[1 << 14];

static bool tok_is(const jsmntok_t *t, const char *s)
{
    return t->type == JSMN_STRING && (size_t)(t->end - t->start) == strlen(s) &&
           strncmp(json + t->start, s, (size_t)(t->end - t->start)) == 0;
}

/* The index of the token after the subtree at i. */
static int skip(int i)
{
    int n = 1;
    while (n > 0) {
        n--;
        if (toks[i].type == JSMN_OBJECT)
            n += 2 * toks[i].size;
        else if (toks[i].type == JSMN_ARRAY)
            n += toks[i].size;
        i++;
    }
    return i;
}

/* Parse the trace at path into evs; false (with a message) if it is not the expected JSON. */
static bool load_trace(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t len = fread(json, 1, sizeof json - 1, f);
    fclose(f);
    json[len] = '\0';
    jsmn_parser p;
    jsmn_init(&p);
    int nt = jsmn_parse(&p, json, len, toks, sizeof toks / sizeof toks[0]);
    if (nt <= 0 || toks[0].type != JSMN_OBJECT) {
        fprintf(stderr, "  the trace is not a JSON object (jsmn: %d)\n", nt);
        return false;
    }
    nevs = 0;
    int i = 1;
    bool found = false;
    for (int k = 0; k < toks[0].size; k++) {
        if (!tok_is(&toks[i], "traceEvents")) {
            i = skip(i + 1);
            continue;
        }
        found = true;
        CHECK(toks[i + 1].type == JSMN_ARRAY);
        int n = toks[i + 1].size;
        i += 2;
        for (int e = 0; e < n; e++) {
            CHECK(toks[i].type == JSMN_OBJECT);
            CHECK(nevs < MAX_EVS);
            struct ev *v = &evs[nevs++];
            memset(v, 0, sizeof *v);
            int members = toks[i].size;
            i++;
            for (int m = 0; m < members; m++) {
                const jsmntok_t *key = &toks[i], *val = &toks[i + 1];
                const char *vs = json + val->start;
                if (tok_is(key, "name"))
                    snprintf(v->name, sizeof v->name, "%.*s", val->end - val->start, vs);
                else if (tok_is(key, "ph"))
                    v->ph = *vs;
                else if (tok_is(key, "pid"))
                    v->pid = strtol(vs, NULL, 10);
                else if (tok_is(key, "tid"))
                    v->tid = strtol(vs, NULL, 10);
                else if (tok_is(key, "ts"))
                    v->ts = strtod(vs, NULL);
                else if (tok_is(key, "dur"))
                    v->dur = strtod(vs, NULL);
                i = skip(i + 1);
            }
        }
    }
    if (!found)
        fprintf(stderr, "  the trace has no traceEvents\n");
    return found;
}

/* The complete events of one device and stream, in the trace's order. */
static int task_events(long pid, long tid, const struct ev **out, int max)
{
    int n = 0;
    for (int i = 0; i < nevs; i++)
        if (evs[i].ph == 'X' && evs[i].pid == pid && evs[i].tid == tid && n < max)
            out[n++] = &evs[i];
    return n;
}

static bool has_meta(const char *what, long pid, long tid)
{
    for (int i = 0; i < nevs; i++)
        if (evs[i].ph == 'M' && strcmp(evs[i].name, what) == 0 && evs[i].pid == pid &&
            (tid < 0 || evs[i].tid == tid))
            return true;
    return false;
}

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* ------------------------------------------------------------------------
 * Order and arguments
 * ------------------------------------------------------------------------ */

TEST(the_calls_keep_their_order_and_say_when_they_do_not)
{
    uint32_t dev = 0;
    aclprofConfig *cfg = aclprofCreateConfig(&dev, 1, ACL_AICORE_PIPE_UTILIZATION, NULL, ACL_PROF_TASK_TIME);
    CHECK(cfg != NULL);
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStart(cfg));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclprofInit first");
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStop(cfg));
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofFinalize());
    char dir[300];
    fresh_dir(dir, sizeof dir);
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclprofInit(dir, strlen(dir)));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already initialized");
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStop(cfg));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclprofStart first");
    CHECK_OK(aclprofStart(cfg));
    CHECK_EQ(ACL_ERROR_PROF_ALREADY_RUN, aclprofStart(cfg));
    CHECK_OK(aclprofStop(cfg));
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStop(cfg));
    /* A session after a session, in the same initialization: a second trace. */
    CHECK_OK(aclprofStart(cfg));
    CHECK_OK(aclprofStop(cfg));
    char path[600];
    CHECK_EQ(2, trace_files(dir, path, sizeof path));
    CHECK_OK(aclprofFinalize());
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofFinalize());
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStart(cfg));
    CHECK_OK(aclprofDestroyConfig(cfg));
}

TEST(init_rejects_bad_paths_and_makes_missing_directories)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(NULL, 4));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit("/tmp", 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit("/tmp", 3));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not the length");
    static char longer[5000];
    memset(longer, 'a', sizeof longer - 1);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(longer, sizeof longer - 1));
    /* A file is not a directory, nor can one be made under it. */
    char file[300], under[400];
    snprintf(file, sizeof file, "%s/a_file", base_dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    fclose(f);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(file, strlen(file)));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a directory");
    snprintf(under, sizeof under, "%s/sub", file);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(under, strlen(under)));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot make");
    if (geteuid() != 0) { /* root writes anywhere */
        char ro[300];
        fresh_dir(ro, sizeof ro);
        CHECK(mkdir(ro, 0500) == 0);
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofInit(ro, strlen(ro)));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not writable");
    }
    /* None of these initialized anything. */
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofFinalize());
    /* A missing directory, two levels deep, with a trailing slash: made. */
    char nested[300], with_slash[320];
    fresh_dir(nested, sizeof nested);
    snprintf(with_slash, sizeof with_slash, "%s/inner/", nested);
    CHECK_OK(aclprofInit(with_slash, strlen(with_slash)));
    struct stat st;
    with_slash[strlen(with_slash) - 1] = '\0';
    CHECK(stat(with_slash, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_OK(aclprofFinalize());
}

TEST(configurations_reject_bad_devices_and_events)
{
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    uint32_t ids[3] = {0, 1, 0};
    CHECK(aclprofCreateConfig(NULL, 1, ACL_AICORE_NONE, NULL, 0) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "deviceIdList is NULL");
    CHECK(aclprofCreateConfig(ids, 1, ACL_AICORE_NONE, (const aclprofAicoreEvents *)ids, 0) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aicoreEvents");
    CHECK(aclprofCreateConfig(ids, 3, ACL_AICORE_NONE, NULL, 0) == NULL); /* 0 twice (and 3 > 2 devices) */
    CHECK(aclprofCreateConfig(ids, 0, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "deviceNums is 0");
    uint32_t bad = count;
    CHECK(aclprofCreateConfig(&bad, 1, ACL_AICORE_NONE, NULL, 0) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not in [0,");
    uint32_t twice[2] = {1, 1};
    CHECK(aclprofCreateConfig(twice, 2, ACL_AICORE_NONE, NULL, 0) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "twice");
    /* No devices is allowed with the msproftx bit (host markers only). */
    aclprofConfig *tx = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
    CHECK(tx != NULL);
    aclprofConfig *both = aclprofCreateConfig(ids, 2, ACL_AICORE_PIPE_UTILIZATION, NULL, ACL_PROF_ACL_API);
    CHECK(both != NULL);
    CHECK_OK(aclprofDestroyConfig(tx));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofDestroyConfig(tx));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a profiling configuration");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofDestroyConfig(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofStart(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofStop(NULL));
    char dir[300];
    fresh_dir(dir, sizeof dir);
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofStart(tx)); /* destroyed */
    /* Stopping a session with a configuration of devices it does not profile. */
    aclprofConfig *one = aclprofCreateConfig(ids, 1, ACL_AICORE_NONE, NULL, 0);
    CHECK(one != NULL);
    CHECK_OK(aclprofStart(one));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofStop(both));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not profiled");
    CHECK_OK(aclprofStop(one));
    CHECK_OK(aclprofFinalize());
    CHECK_OK(aclprofDestroyConfig(one));
    CHECK_OK(aclprofDestroyConfig(both));
}

/* ------------------------------------------------------------------------
 * The trace
 * ------------------------------------------------------------------------ */

TEST(a_session_records_the_tasks_of_its_devices_on_every_stream)
{
    static atomic_int ran;
    atomic_store(&ran, 0);
    aclrtStream a, b, other;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    int32_t id_a = -1, id_b = -1;
    CHECK_OK(aclrtStreamGetId(a, &id_a));
    CHECK_OK(aclrtStreamGetId(b, &id_b));
    void *mem = NULL;
    CHECK_OK(aclrtMalloc(&mem, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Before the session: not recorded. */
    CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(a));

    char dir[300], path[600];
    fresh_dir(dir, sizeof dir);
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    uint32_t dev = 0;
    aclprofConfig *cfg = aclprofCreateConfig(&dev, 1, ACL_AICORE_PIPE_UTILIZATION, NULL,
                                             ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_HCCL_TRACE);
    CHECK(cfg != NULL);
    uint64_t t0 = mono_ns();
    CHECK_OK(aclprofStart(cfg));
    /* Stream a: 3 host functions and a memset; b waits for a gate, then 2 host functions and a memset. */
    struct gate *g = launch_gate(b);
    for (int i = 0; i < 3; i++)
        CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &ran));
    CHECK_OK(aclrtMemsetAsync(mem, 256, 7, 128, a));
    for (int i = 0; i < 2; i++)
        CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &ran));
    CHECK_OK(aclrtMemsetAsync((char *)mem + 128, 128, 9, 128, b)); /* the other half: the streams do not race */
    /* Device 1 is not profiled. */
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtCreateStream(&other));
    CHECK_OK(aclrtLaunchHostFunc(other, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_OK(aclrtDestroyStream(other));
    CHECK_OK(aclrtSetDevice(0));
    gate_wait_entered(g);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclprofStop(cfg));
    uint64_t t1 = mono_ns();
    /* After the session: not recorded. */
    CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(8, atomic_load(&ran));

    CHECK_EQ(1, trace_files(dir, path, sizeof path));
    CHECK(load_trace(path));
    const struct ev *on_a[16], *on_b[16];
    CHECK_EQ(4, task_events(0, id_a, on_a, 16));
    CHECK_EQ(4, task_events(0, id_b, on_b, 16)); /* the gate, 2 host functions, the memset */
    int total = 0;
    for (int i = 0; i < nevs; i++) {
        if (evs[i].ph != 'X')
            continue;
        total++;
        CHECK_EQ(0, evs[i].pid); /* nothing of device 1 */
    }
    CHECK_EQ(8, total);
    CHECK(has_meta("process_name", 0, -1));
    CHECK(has_meta("thread_name", 0, id_a));
    CHECK(has_meta("thread_name", 0, id_b));
    CHECK(!has_meta("process_name", 1, -1));
    CHECK_STR_CONTAINS(on_a[0]->name, "host function");
    CHECK_STR_CONTAINS(on_a[3]->name, "memset");
    CHECK_STR_CONTAINS(on_b[3]->name, "memset");
    /* Times: inside the session, and each stream's tasks one after another. */
    double session_us = (double)(t1 - t0) / 1000.0;
    const struct ev **lists[2] = {on_a, on_b};
    for (int l = 0; l < 2; l++) {
        for (int i = 0; i < 4; i++) {
            const struct ev *e = lists[l][i];
            CHECK(e->ts >= 0.0);
            CHECK(e->dur >= 0.0);
            CHECK(e->ts + e->dur <= session_us);
            if (i > 0)
                CHECK(lists[l][i - 1]->ts + lists[l][i - 1]->dur <= e->ts);
        }
    }
    /* b's tasks after its gate ran after a's had been launched... and the gate itself lasted until it opened. */
    CHECK(on_b[0]->dur > 0.0);
    CHECK_OK(aclprofFinalize());
    CHECK_OK(aclprofDestroyConfig(cfg));
    CHECK_OK(aclrtFree(mem));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(finalize_ends_a_running_session_and_writes_its_trace)
{
    static atomic_int ran;
    atomic_store(&ran, 0);
    char dir[300], path[600];
    fresh_dir(dir, sizeof dir);
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    uint32_t devs[2] = {1, 0};
    aclprofConfig *cfg = aclprofCreateConfig(devs, 2, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME);
    CHECK(cfg != NULL);
    CHECK_OK(aclprofStart(cfg));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    for (int i = 0; i < 5; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclprofFinalize());
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofStop(cfg));
    CHECK_EQ(1, trace_files(dir, path, sizeof path));
    CHECK(load_trace(path));
    int32_t id = -1;
    CHECK_OK(aclrtStreamGetId(s, &id));
    const struct ev *on_s[8];
    CHECK_EQ(5, task_events(0, id, on_s, 8));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclprofDestroyConfig(cfg));
}

/* After a case that failed half way: no session left running, no stream held. */
static void case_cleanup(void)
{
    gates_open_all();
    aclprofFinalize();
    aclrtSetDevice(0);
    aclrtSynchronizeDeviceWithTimeout(2000);
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    snprintf(base_dir, sizeof base_dir, "/tmp/aclrt_test_prof_XXXXXX");
    if (mkdtemp(base_dir) == NULL || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(the_calls_keep_their_order_and_say_when_they_do_not);
    RUN_CASE(init_rejects_bad_paths_and_makes_missing_directories);
    RUN_CASE(configurations_reject_bad_devices_and_events);
    RUN_CASE(a_session_records_the_tasks_of_its_devices_on_every_stream);
    RUN_CASE(finalize_ends_a_running_session_and_writes_its_trace);
    aclrtResetDevice(0);
    aclFinalize();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+w %s && rm -rf %s", base_dir, base_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", base_dir);
    return check_report("prof");
}
