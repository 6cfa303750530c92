/*
 * tests/test_prof_subscribe.c - pins "Profiling: op subscription"
 * (docs/SEMANTICS.md): configurations and their checks, subscribing a
 * captured model by its id, one op descriptor per step of every replay in
 * the pipe (type, name, model, times, thread), the getters on good and bad
 * buffers, the fd closed by aclprofModelUnSubscribe once the replays in
 * flight are done, and the conflict with a profiling session.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "acl/acl_prof.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <stdatomic.h>
#include <unistd.h>

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static aclError count_kernel(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx, (void)numBlocks;
    atomic_fetch_add((atomic_int *)args, 1);
    return ACL_SUCCESS;
}

static atomic_int ran;
static void *mem;

/* A model of 3 steps: a host function, a memset, a host kernel. */
static aclmdlRI capture_three(aclrtStream s, uint32_t *id)
{
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtMemsetAsync(mem, 64, 1, 64, s));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, count_kernel, &ran));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK(m != NULL);
    CHECK_OK(aclmdlRIGetId(m, id));
    return m;
}

/* Read the pipe to its end (the write end closed) into buf; the bytes read. */
static size_t read_all(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

TEST(configurations_check_their_fd_switch_and_metrics)
{
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, NULL) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "fd is NULL");
    CHECK(aclprofCreateSubscribeConfig(2, ACL_AICORE_NONE, &p[1]) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "timeInfoSwitch");
    CHECK(aclprofCreateSubscribeConfig(1, (aclprofAicoreMetrics)9, &p[1]) == NULL);
    CHECK(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &p[0]) == NULL); /* the read end */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not open for writing");
    int closed = 1000;
    CHECK(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &closed) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not an open file descriptor");
    aclprofSubscribeConfig *c = aclprofCreateSubscribeConfig(0, ACL_AICORE_PIPE_UTILIZATION, &p[1]);
    CHECK(c != NULL);
    CHECK_OK(aclprofDestroySubscribeConfig(c));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofDestroySubscribeConfig(c));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a subscription configuration");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofDestroySubscribeConfig(NULL));
    close(p[0]);
    close(p[1]);
}

TEST(subscribe_checks_the_model_and_the_order)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t id = 0;
    aclmdlRI m = capture_three(s, &id);
    int p[2];
    CHECK(pipe(p) == 0);
    aclprofSubscribeConfig *c = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &p[1]);
    CHECK(c != NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofModelSubscribe(id, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_MODEL_ID, aclprofModelSubscribe(id + 100, c));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live model");
    CHECK_EQ(ACL_ERROR_INVALID_MODEL_ID, aclprofModelUnSubscribe(id));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not subscribed");
    /* Not while profiling is initialized, and no aclprofInit while subscribed. */
    char dir[] = "/tmp/aclrt_test_prof_subscribe_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    CHECK_EQ(ACL_ERROR_PROF_API_CONFLICT, aclprofModelSubscribe(id, c));
    CHECK_OK(aclprofFinalize());
    CHECK_OK(aclprofModelSubscribe(id, c));
    CHECK_EQ(ACL_ERROR_PROF_API_CONFLICT, aclprofInit(dir, strlen(dir)));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "subscribed");
    CHECK_EQ(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, aclprofModelSubscribe(id, c));
    CHECK_OK(aclprofModelUnSubscribe(id));
    CHECK_EQ(ACL_ERROR_INVALID_MODEL_ID, aclprofModelUnSubscribe(id));
    /* The unsubscription closed the write end: the reader sees the end, nothing written. */
    char buf[64];
    CHECK_EQ(0, (int)read_all(p[0], buf, sizeof buf));
    CHECK(fcntl(p[1], F_GETFD) == -1 && errno == EBADF);
    /* A destroyed configuration or model cannot be subscribed. */
    CHECK_OK(aclprofDestroySubscribeConfig(c));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofModelSubscribe(id, c));
    CHECK_OK(aclmdlRIDestroy(m));
    int q[2];
    CHECK(pipe(q) == 0);
    c = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &q[1]);
    CHECK_EQ(ACL_ERROR_INVALID_MODEL_ID, aclprofModelSubscribe(id, c));
    CHECK_OK(aclprofDestroySubscribeConfig(c));
    close(p[0]);
    close(q[0]);
    close(q[1]);
    rmdir(dir);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(every_replay_writes_one_descriptor_per_step)
{
    atomic_store(&ran, 0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t id = 0;
    aclmdlRI m = capture_three(s, &id);
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* before the subscription: nothing */
    CHECK_OK(aclrtSynchronizeStream(s));
    int p[2];
    CHECK(pipe(p) == 0);
    aclprofSubscribeConfig *c = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &p[1]);
    CHECK(c != NULL);
    CHECK_OK(aclprofModelSubscribe(id, c));
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t0 = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t1 = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    CHECK_OK(aclprofModelUnSubscribe(id));
    CHECK_EQ(6, atomic_load(&ran));
    size_t size = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpDescSize(NULL));
    CHECK_OK(aclprofGetOpDescSize(&size));
    CHECK(size >= 64 && size <= 512);
    static char buf[1 << 16];
    size_t len = read_all(p[0], buf, sizeof buf);
    CHECK_EQ(6 * size, len);
    uint32_t n = 0;
    CHECK_OK(aclprofGetOpNum(buf, len, &n));
    CHECK_EQ(6, (int)n);
    static const char *const types[3] = {"host function", "memset", "host kernel"};
    uint64_t last_end = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t tl = 0, nl = 0;
        CHECK_OK(aclprofGetOpTypeLen(buf, len, i, &tl));
        CHECK_EQ(strlen(types[i % 3]) + 1, tl);
        char type[ACL_PROF_MAX_OP_TYPE_LEN], name[ACL_PROF_MAX_OP_NAME_LEN], want[80];
        CHECK_OK(aclprofGetOpType(buf, len, i, type, tl));
        CHECK(strcmp(type, types[i % 3]) == 0);
        CHECK_OK(aclprofGetOpNameLen(buf, len, i, &nl));
        CHECK_OK(aclprofGetOpName(buf, len, i, name, nl));
        snprintf(want, sizeof want, "%s %u", types[i % 3], i % 3);
        CHECK(strcmp(name, want) == 0);
        CHECK_EQ(strlen(want) + 1, nl);
        CHECK_EQ((size_t)id, aclprofGetModelId(buf, len, i));
        CHECK_EQ(ACL_SUBSCRIBE_OP, aclprofGetOpFlag(buf, len, i));
        uint64_t start = aclprofGetOpStart(buf, len, i), end = aclprofGetOpEnd(buf, len, i);
        CHECK(t0 <= start && start <= end && end <= t1);
        CHECK(last_end <= start); /* one stream: one step after another */
        last_end = end;
        CHECK_EQ(end - start, aclprofGetOpDuration(buf, len, i));
        const char *tid = aclprofGetOpAttriValue(buf, len, i, ACL_SUBSCRIBE_ATTRI_THREADID);
        CHECK(tid != NULL && strtoul(tid, NULL, 10) != 0);
    }
    /* A small buffer: the name cut, terminated. */
    char small[4];
    CHECK_OK(aclprofGetOpName(buf, len, 0, small, sizeof small));
    CHECK(strcmp(small, "hos") == 0);
    CHECK_OK(aclprofDestroySubscribeConfig(c));
    CHECK_OK(aclmdlRIDestroy(m));
    close(p[0]);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(getters_refuse_what_is_not_whole_descriptors)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t id = 0;
    aclmdlRI m = capture_three(s, &id);
    int p[2];
    CHECK(pipe(p) == 0);
    aclprofSubscribeConfig *c = aclprofCreateSubscribeConfig(0, ACL_AICORE_NONE, &p[1]);
    CHECK_OK(aclprofModelSubscribe(id, c));
    /* Unsubscribed while a replay waits at a gate: the fd stays open until the replay is done. */
    struct gate *g = launch_gate(s);
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclprofModelUnSubscribe(id));
    CHECK(fcntl(p[1], F_GETFD) != -1);
    gate_wait_entered(g);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    static char buf[1 << 14];
    size_t len = read_all(p[0], buf, sizeof buf);
    size_t size = 0;
    CHECK_OK(aclprofGetOpDescSize(&size));
    CHECK_EQ(3 * size, len);
    /* Time info off: no times. */
    CHECK_EQ(0, (int)aclprofGetOpStart(buf, len, 1));
    CHECK_EQ(0, (int)aclprofGetOpDuration(buf, len, 1));
    uint32_t n = 0;
    size_t l = 0;
    char out[64];
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(NULL, len, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf, len, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf, len - 1, &n));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a multiple");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf, 0, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpTypeLen(buf, len, 3, &l));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "index 3");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpTypeLen(buf, len, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpType(buf, len, 0, NULL, 8));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpType(buf, len, 0, out, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNameLen(buf, len, 7, &l));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpName(buf, len, 7, out, sizeof out));
    CHECK_EQ(0, (int)aclprofGetOpEnd(buf, len, 3));
    CHECK_EQ(0, (int)aclprofGetModelId(NULL, len, 0));
    CHECK_EQ(ACL_SUBSCRIBE_NONE, aclprofGetOpFlag(buf, 5, 0));
    CHECK(aclprofGetOpAttriValue(buf, len, 0, ACL_SUBSCRIBE_ATTRI_NONE) == NULL);
    CHECK(aclprofGetOpAttriValue(buf, len, 9, ACL_SUBSCRIBE_ATTRI_THREADID) == NULL);
    /* A byte changed: not a descriptor of ours. */
    buf[size + 40] ^= 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetOpNum(buf, len, &n));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "checksum");
    CHECK_OK(aclprofGetOpNum(buf, size, &n)); /* the first alone is whole */
    CHECK_EQ(1, (int)n);
    CHECK_OK(aclprofDestroySubscribeConfig(c));
    CHECK_OK(aclmdlRIDestroy(m));
    close(p[0]);
    CHECK_OK(aclrtDestroyStream(s));
}

static void case_cleanup(void)
{
    gates_open_all();
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
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtMalloc(&mem, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(configurations_check_their_fd_switch_and_metrics);
    RUN_CASE(subscribe_checks_the_model_and_the_order);
    RUN_CASE(every_replay_writes_one_descriptor_per_step);
    RUN_CASE(getters_refuse_what_is_not_whole_descriptors);
    aclrtFree(mem);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("prof_subscribe");
}
