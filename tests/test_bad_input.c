/*
 * tests/test_bad_input.c - bad input never crashes and returns the
 * documented code (docs/SEMANTICS.md; the codes and values are the CANN
 * runtime's, as its headers define them):
 *
 *   NULL pointer argument                     ACL_ERROR_INVALID_PARAM (100000)
 *   garbage, stale or wrong-kind handle       ACL_ERROR_RT_INVALID_HANDLE (107017)
 *   bad flag / timeout / size / value         ACL_ERROR_RT_PARAM_INVALID (107000)
 *   stream of another context                 ACL_ERROR_RT_STREAM_CONTEXT (107003)
 *   no current context                        ACL_ERROR_RT_CONTEXT_NULL (107002)
 *   bad device id                             ACL_ERROR_RT_INVALID_DEVICEID (107001)
 *
 * and every failure leaves a line naming the function in aclGetRecentErrMsg
 * ("[aclrtXxx] ..."). Then a deterministic fuzz loop calls random functions
 * with random mixes of valid, stale, garbage and NULL arguments: only
 * documented codes, no crash, and work queued between the calls still runs.
 *
 * Handles used as garbage: (void *)0x1, (void *)0xdeadbeef, the address of a
 * local int, a seeded random 64-bit value, and values forged from real
 * handles (another generation, an index out of range). A correct runtime
 * never dereferences them.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */
#include "check.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#define SYNC_LIMIT_MS 30000
#define P ACL_ERROR_INVALID_PARAM
#define H ACL_ERROR_RT_INVALID_HANDLE
#define R ACL_ERROR_RT_PARAM_INVALID
#define F ACL_ERROR_RT_FEATURE_NOT_SUPPORT

static aclrtContext g_ctx;        /* device 0's default context */
static aclrtStream g_stream;      /* an ordinary stream of g_ctx */
static aclrtStream g_default;     /* g_ctx's default stream, by its real handle */
static aclrtContext g_ctx2;       /* an explicit context on device 0 */
static aclrtStream g_other;       /* a stream of g_ctx2 */
static aclrtEvent g_plain;        /* aclrtCreateEvent, recorded */
static aclrtEvent g_ex;           /* Ex, SYNC | TIME_LINE, recorded */
static aclrtEvent g_sync;         /* legacy SYNC | TIME_LINE, recorded */
static aclrtEvent g_nosync;       /* legacy TIME_LINE only, recorded */
static aclrtEvent g_devonly;      /* legacy DEVICE_USE_ONLY */
static aclrtEvent g_external;     /* legacy EXTERNAL */
static aclrtStream g_stale_stream;
static aclrtEvent g_stale_event;
static aclrtContext g_stale_ctx;
static int g_local_int;           /* its address is a garbage handle */
static uint64_t g_rng = 0xBAD1DEA5EEDull;

struct bad_handle {
    const char *what;
    void *h;
};

/* Garbage that is not any kind of handle, then the kind-specific ones. */
static struct bad_handle bad_streams[16], bad_events[16], bad_ctxs[16];
static int n_bad_streams, n_bad_events, n_bad_ctxs;

static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------
 * Expectations
 * ------------------------------------------------------------------------ */

static const char *g_detail = ""; /* which bad argument a loop is at, for failure reports */

/* The newest line of the recent-error text (a copy), or NULL. */
static const char *newest_error_line(void)
{
    static char line[1024];
    const char *m = aclGetRecentErrMsg();
    if (m == NULL)
        return NULL;
    size_t n = strcspn(m, "\n");
    if (n >= sizeof line)
        n = sizeof line - 1;
    memcpy(line, m, n);
    line[n] = '\0';
    return line;
}

/* "[aclrtXxx]" from the text of a call "aclrtXxx(args)". */
static const char *bracketed_name(const char *call_text)
{
    static char name[96];
    size_t n = strcspn(call_text, "( ");
    if (n > sizeof name - 3)
        n = sizeof name - 3;
    name[0] = '[';
    memcpy(name + 1, call_text, n);
    name[n + 1] = ']';
    name[n + 2] = '\0';
    return name;
}

/* The call fails with `code` and leaves a message line naming itself. */
#define EXPECT_ERR(code, call)                                                         \
    do {                                                                               \
        (void)aclGetRecentErrMsg();                                                    \
        aclError rc_ = (call);                                                         \
        if (rc_ != (code))                                                             \
            fprintf(stderr, "  (argument: %s)\n", g_detail);                           \
        CHECK_EQ((code), rc_);                                                         \
        const char *line_ = newest_error_line();                                       \
        if (line_ == NULL || strstr(line_, bracketed_name(#call)) == NULL)             \
            fprintf(stderr, "  (argument: %s)\n", g_detail);                           \
        CHECK_STR_CONTAINS(line_, bracketed_name(#call));                              \
    } while (0)

/* Each bad stream / event / context handle in turn as the variable X. */
#define FOR_BAD(set, n, X)                                                             \
    for (int bi_ = 0; bi_ < (n); bi_++)                                                \
        for (void *X = (g_detail = (set)[bi_].what, (set)[bi_].h); X != (void *)-1; X = (void *)-1)

static void add_bad(struct bad_handle *set, int *n, const char *what, void *h)
{
    set[*n].what = what;
    set[*n].h = h;
    (*n)++;
}

/* Forged from a live handle: same kind, another generation; same kind, index out of range. */
static void *forge_generation(void *h)
{
    return (void *)((uintptr_t)h ^ ((uintptr_t)1 << 28));
}

static void *forge_index(void *h)
{
    return (void *)((uintptr_t)h | (((uintptr_t)1 << 28) - 1));
}

static void build_bad_handles(void)
{
    void *garbage[4] = {(void *)0x1, (void *)(uintptr_t)0xdeadbeefu, &g_local_int,
                        (void *)(uintptr_t)rng_next(&g_rng)};
    const char *names[4] = {"(void *)0x1", "(void *)0xdeadbeef", "&local int", "random 64-bit value"};
    for (int i = 0; i < 4; i++) {
        add_bad(bad_streams, &n_bad_streams, names[i], garbage[i]);
        add_bad(bad_events, &n_bad_events, names[i], garbage[i]);
        add_bad(bad_ctxs, &n_bad_ctxs, names[i], garbage[i]);
    }
    add_bad(bad_streams, &n_bad_streams, "destroyed stream", g_stale_stream);
    add_bad(bad_streams, &n_bad_streams, "stream handle, other generation", forge_generation(g_stream));
    add_bad(bad_streams, &n_bad_streams, "stream handle, index out of range", forge_index(g_stream));
    add_bad(bad_streams, &n_bad_streams, "an event as a stream", g_plain);
    add_bad(bad_streams, &n_bad_streams, "a context as a stream", g_ctx);
    add_bad(bad_events, &n_bad_events, "destroyed event", g_stale_event);
    add_bad(bad_events, &n_bad_events, "event handle, other generation", forge_generation(g_plain));
    add_bad(bad_events, &n_bad_events, "event handle, index out of range", forge_index(g_plain));
    add_bad(bad_events, &n_bad_events, "a stream as an event", g_stream);
    add_bad(bad_events, &n_bad_events, "a context as an event", g_ctx);
    add_bad(bad_ctxs, &n_bad_ctxs, "destroyed context", g_stale_ctx);
    add_bad(bad_ctxs, &n_bad_ctxs, "context handle, other generation", forge_generation(g_ctx2));
    add_bad(bad_ctxs, &n_bad_ctxs, "context handle, index out of range", forge_index(g_ctx2));
    add_bad(bad_ctxs, &n_bad_ctxs, "a stream as a context", g_stream);
    add_bad(bad_ctxs, &n_bad_ctxs, "an event as a context", g_plain);
}

static atomic_int g_gate;

static void gate_func(void *p)
{
    (void)p;
    while (!atomic_load_explicit(&g_gate, memory_order_acquire))
        ;
}

static void noop_func(void *p)
{
    (void)p;
}

static aclError noop_kernel(uint32_t block, uint32_t blocks, void *p)
{
    (void)block;
    (void)blocks;
    (void)p;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Init and errors
 * ------------------------------------------------------------------------ */

static char tmp_dir[] = "/tmp/aclrt_bad_input_XXXXXX";

static const char *write_config(const char *name, const char *text, size_t repeat)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return "/nonexistent";
    for (size_t i = 0; i < repeat; i++)
        fputs(text, f);
    fclose(f);
    return path;
}

/* Runs before anything else: the runtime is not initialised yet. */
TEST(acl_init_rejects_bad_configuration_files)
{
    CHECK(mkdtemp(tmp_dir) != NULL);
    EXPECT_ERR(ACL_ERROR_INVALID_FILE, aclInit("/nonexistent/aclrt/config.json"));
    EXPECT_ERR(ACL_ERROR_INVALID_FILE_SIZE, aclInit(write_config("big.json", "                ", 70000)));
    EXPECT_ERR(ACL_ERROR_PARSE_FILE, aclInit(write_config("garbage.json", "{{{ not json", 1)));
    EXPECT_ERR(ACL_ERROR_PARSE_FILE, aclInit(write_config("array.json", "[1, 2]", 1)));
    EXPECT_ERR(ACL_ERROR_PARSE_FILE, aclInit(write_config("comma.json", "{\"a\": 1,}", 1)));
    EXPECT_ERR(ACL_ERROR_PARSE_FILE,
               aclInit(write_config("deep.json", "{\"a\":[[[[[[[[[[[[1]]]]]]]]]]]}", 1)));
    EXPECT_ERR(ACL_ERROR_FILE_ATTR_INVALID, aclInit(write_config("attr.json", "{\"err_msg_mode\": \"7\"}", 1)));
    EXPECT_ERR(ACL_ERROR_FILE_ATTR_INVALID,
               aclInit(write_config("attr2.json", "{\"aclrt\": {\"devices\": \"many\"}}", 1)));
    /* None of those initialised anything: a good one does, once. */
    CHECK_OK(aclInit(NULL));
    (void)aclGetRecentErrMsg();
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)); /* counts as an error */
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclInit(write_config("other.json", "{\"aclrt\": {}}", 1)));
    remove(write_config("big.json", "", 0));
    remove(write_config("garbage.json", "", 0));
    remove(write_config("array.json", "", 0));
    remove(write_config("comma.json", "", 0));
    remove(write_config("deep.json", "", 0));
    remove(write_config("attr.json", "", 0));
    remove(write_config("attr2.json", "", 0));
    remove(write_config("other.json", "", 0));
    rmdir(tmp_dir);
}

TEST(error_reporting_functions_reject_bad_levels)
{
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetLastError((aclrtLastErrLevel)1));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError((aclrtLastErrLevel)-1));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetLastError((aclrtLastErrLevel)0x7fffffff));
    /* The thread's last error is that code; Get returns and clears it, Peek does not clear. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    /* The text is taken once: a second call has nothing. */
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    CHECK(aclGetRecentErrMsg() == NULL);
    /* Several failures: newest first, all there. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
    const char *all = aclGetRecentErrMsg();
    CHECK(all != NULL);
    CHECK(strncmp(all, "[aclrtGetRunMode]", 17) == 0);
    CHECK_STR_CONTAINS(all, "\n[aclrtGetDevice]");
}

/* ------------------------------------------------------------------------
 * Devices and contexts
 * ------------------------------------------------------------------------ */

TEST(device_functions_reject_bad_ids_and_null_outputs)
{
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    CHECK_EQ(2, count); /* main() configured two devices */
    int32_t bad_ids[] = {-1, (int32_t)count, 64, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        g_detail = "a device id out of range";
        EXPECT_ERR(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(bad_ids[i]));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(bad_ids[i]));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceForce(bad_ids[i]));
        aclrtContext c = NULL;
        EXPECT_ERR(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c, bad_ids[i]));
        CHECK(c == NULL);
    }
    /* Device 1 exists but was never set: nothing to reset. */
    EXPECT_ERR(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDevice(1));
    EXPECT_ERR(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDeviceForce(1));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(NULL, 0));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetCurrentContext(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(NULL));
    int32_t bad_timeouts[] = {0, -2, INT32_MIN};
    for (size_t i = 0; i < 3; i++)
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(bad_timeouts[i]));
    /* Nothing changed: still device 0, its default context. */
    int32_t dev = -1;
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(0, dev);
    aclrtContext cur = NULL;
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == g_ctx);
}

TEST(context_functions_reject_null_garbage_stale_and_wrong_kind_handles)
{
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(NULL));
    FOR_BAD(bad_ctxs, n_bad_ctxs, x)
    {
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyContext(x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(x));
    }
    /* A default context is released by aclrtResetDevice, not destroyed. */
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtDestroyContext(g_ctx));
    aclrtContext cur = NULL;
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == g_ctx); /* failed calls did not change the current context */
    aclrtStream def = NULL;
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK(def == g_default);
}

/* A thread that never set a device or context. */
struct no_ctx_result {
    aclError rc[14];
    bool named[14];
};

static const char *const no_ctx_names[14] = {
    "[aclrtGetDevice]",      "[aclrtGetCurrentContext]", "[aclrtCreateStream]",    "[aclrtLaunchHostFunc]",
    "[aclrtCreateEvent]",    "[aclrtRecordEvent]",       "[aclrtSynchronizeDevice]", "[aclrtMalloc]",
    "[aclrtGetStreamAvailableNum]", "[aclrtGetEventAvailNum]", "[aclrtStreamWaitEvent]", "[aclrtMemcpyAsync]",
    "[aclrtCtxGetCurrentDefaultStream]", "[aclrtxLaunchHostKernel]",
};

static void *no_ctx_thread(void *p)
{
    struct no_ctx_result *r = (struct no_ctx_result *)p;
    int32_t dev;
    aclrtContext c;
    aclrtStream s;
    aclrtEvent e;
    void *ptr;
    uint32_t n;
    static char buf[16];
    aclError rcs[14];
    for (int i = 0; i < 14; i++) {
        (void)aclGetRecentErrMsg();
        switch (i) {
        case 0: rcs[i] = aclrtGetDevice(&dev); break;
        case 1: rcs[i] = aclrtGetCurrentContext(&c); break;
        case 2: rcs[i] = aclrtCreateStream(&s); break;
        case 3: rcs[i] = aclrtLaunchHostFunc(g_stream, noop_func, NULL); break; /* an explicit, live stream */
        case 4: rcs[i] = aclrtCreateEvent(&e); break;
        case 5: rcs[i] = aclrtRecordEvent(g_plain, g_stream); break;
        case 6: rcs[i] = aclrtSynchronizeDevice(); break;
        case 7: rcs[i] = aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST); break;
        case 8: rcs[i] = aclrtGetStreamAvailableNum(&n); break;
        case 9: rcs[i] = aclrtGetEventAvailNum(&n); break;
        case 10: rcs[i] = aclrtStreamWaitEvent(g_stream, g_plain); break;
        case 11: rcs[i] = aclrtMemcpyAsync(buf, 16, buf + 8, 8, ACL_MEMCPY_HOST_TO_HOST, g_stream); break;
        case 12: rcs[i] = aclrtCtxGetCurrentDefaultStream(&s); break;
        default: rcs[i] = aclrtxLaunchHostKernel(g_stream, 1, noop_kernel, NULL); break;
        }
        r->rc[i] = rcs[i];
        const char *line = newest_error_line();
        r->named[i] = line != NULL && strstr(line, no_ctx_names[i]) != NULL;
    }
    return NULL;
}

struct any_ctx_result {
    aclError sync, query;
};

static void *any_ctx_thread(void *p)
{
    struct any_ctx_result *r = (struct any_ctx_result *)p;
    aclrtStreamStatus st;
    r->sync = aclrtSynchronizeStreamWithTimeout(g_stream, SYNC_LIMIT_MS);
    r->query = aclrtStreamQuery(g_stream, &st);
    return NULL;
}

TEST(calls_from_a_thread_without_a_context_fail_with_context_null)
{
    struct no_ctx_result r;
    memset(&r, 0, sizeof r);
    pthread_t t;
    pthread_create(&t, NULL, no_ctx_thread, &r);
    pthread_join(t, NULL);
    for (int i = 0; i < 14; i++) {
        g_detail = no_ctx_names[i];
        if (r.rc[i] != ACL_ERROR_RT_CONTEXT_NULL || !r.named[i])
            fprintf(stderr, "  (call: %s)\n", g_detail);
        CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, r.rc[i]);
        CHECK(r.named[i]);
    }
    /* Synchronize and query take any live stream, context or not. */
    struct any_ctx_result a = {-1, -1};
    pthread_create(&t, NULL, any_ctx_thread, &a);
    pthread_join(t, NULL);
    CHECK_OK(a.sync);
    CHECK_OK(a.query);
}

/* ------------------------------------------------------------------------
 * Streams
 * ------------------------------------------------------------------------ */

TEST(stream_functions_reject_null_garbage_stale_and_wrong_kind_handles)
{
    aclrtStreamStatus st;
    int32_t id;
    uint32_t u;
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(NULL, 0, 0));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(NULL, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(g_stream, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(g_stream, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(g_stream, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(g_stream, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamAttribute(g_stream, ACL_STREAM_ATTR_USER_CUSTOM_TAG, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(g_stream, ACL_STREAM_ATTR_USER_CUSTOM_TAG, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAvailableNum(NULL));
    FOR_BAD(bad_streams, n_bad_streams, x)
    {
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStreamForce(x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStreamWithTimeout(x, 100));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(x, &st));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetId(x, &id));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetPriority(x, &u));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetFlags(x, &u));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamFailureMode(x, ACL_STOP_ON_FAILURE));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamAttribute(x, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamAttribute(x, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(x, noop_func, NULL));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtxLaunchHostKernel(x, 1, noop_kernel, NULL));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(g_plain, x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEventWithFlag(g_plain, x, ACL_EVENT_RECORD_DEFAULT));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetEvent(g_sync, x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(x, g_plain));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithTimeout(x, g_plain, 10));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithFlag(x, g_plain, 0, ACL_EVENT_WAIT_DEFAULT));
    }
    /* The default stream: NULL means it where a stream is used; its real handle cannot be destroyed. */
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtDestroyStream(g_default));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtDestroyStreamForce(g_default));
    CHECK_OK(aclrtStreamQuery(NULL, &st));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    /* The streams are still fine. */
    CHECK_OK(aclrtLaunchHostFunc(g_stream, noop_func, NULL));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
}

TEST(stream_functions_reject_wild_values)
{
    aclrtStream s = NULL;
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_CPU_SCHEDULE));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateStreamWithConfig(&s, 3, 0xFFFFFFFFu));
    CHECK(s == NULL);
    /* Unknown flag bits are dropped; priorities are clamped to [0, 7]. */
    CHECK_OK(aclrtCreateStreamWithConfig(&s, UINT32_MAX, 0xFFFFFFC0u | ACL_STREAM_FAST_LAUNCH));
    uint32_t u = 99;
    CHECK_OK(aclrtStreamGetFlags(s, &u));
    CHECK_EQ(ACL_STREAM_FAST_LAUNCH, u);
    CHECK_OK(aclrtStreamGetPriority(s, &u));
    CHECK_EQ(7, u);
    int32_t timeouts[] = {0, -2, INT32_MIN};
    for (int i = 0; i < 3; i++)
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, timeouts[i]));
    uint64_t modes[] = {2, 0x100000000ull, UINT64_MAX};
    for (int i = 0; i < 3; i++)
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamFailureMode(s, modes[i]));
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.failureMode = 7;
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
    aclrtStreamAttr wild[] = {(aclrtStreamAttr)0, (aclrtStreamAttr)6, (aclrtStreamAttr)99, (aclrtStreamAttr)-1};
    for (int i = 0; i < 4; i++) {
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, wild[i], &v));
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(s, wild[i], &v));
    }
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode); /* the rejected modes changed nothing */
    CHECK_OK(aclrtDestroyStream(s));

    /* Stream configuration handles. */
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t prio = 8;
    size_t flag = ACL_STREAM_CPU_SCHEDULE;
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, NULL, sizeof prio));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, 1));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, 2));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)99, &flag, sizeof flag));
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateStreamV2(&s, h));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamConfigHandle(NULL));
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));

    /* Priority range: either pointer may be NULL [src]. */
    int32_t least = -1, greatest = -1;
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(NULL, NULL));
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(&least, NULL));
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(NULL, &greatest));
    CHECK_EQ(7, least);
    CHECK_EQ(0, greatest);
}

TEST(submissions_to_a_stream_of_another_context_fail_with_stream_context)
{
    static char buf[64];
    CHECK_OK(aclrtSetCurrentContext(g_ctx));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(g_other, noop_func, NULL));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtxLaunchHostKernel(g_other, 2, noop_kernel, NULL));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(g_plain, g_other));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(g_other, g_plain));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtResetEvent(g_sync, g_other));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT,
               aclrtMemcpyAsync(buf, 32, buf + 32, 32, ACL_MEMCPY_HOST_TO_HOST, g_other));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemsetAsync(buf, 64, 0, 64, g_other));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStream(g_other));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStreamForce(g_other));
    /* Synchronize, query and the getters take any live stream. */
    aclrtStreamStatus st;
    uint32_t prio;
    CHECK_OK(aclrtSynchronizeStream(g_other));
    CHECK_OK(aclrtStreamQuery(g_other, &st));
    CHECK_OK(aclrtStreamGetPriority(g_other, &prio));
    /* And it still works from its own context. */
    CHECK_OK(aclrtSetCurrentContext(g_ctx2));
    CHECK_OK(aclrtLaunchHostFunc(g_other, noop_func, NULL));
    CHECK_OK(aclrtSynchronizeStream(g_other));
    CHECK_OK(aclrtSetCurrentContext(g_ctx));
}

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

TEST(event_functions_reject_null_garbage_stale_and_wrong_kind_handles)
{
    aclrtEventStatus es;
    aclrtEventRecordedStatus rs;
    aclrtEventWaitStatus ws;
    uint32_t id;
    uint64_t ts;
    float ms;
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateEvent(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(NULL, g_stream));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(NULL, g_stream, ACL_EVENT_RECORD_DEFAULT));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(NULL, g_stream));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(NULL, &es));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(g_plain, NULL));
#pragma GCC diagnostic pop
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(NULL, &rs));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(g_plain, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(NULL, &ws));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(g_plain, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(NULL, 100));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(NULL, g_plain, g_plain));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, NULL, g_plain));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, g_plain, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(NULL, &ts));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(g_plain, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(g_stream, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithTimeout(g_stream, NULL, 0));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(g_stream, NULL, 0, ACL_EVENT_WAIT_DEFAULT));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetEventId(NULL, &id));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetEventId(g_plain, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtGetEventAvailNum(NULL));
    FOR_BAD(bad_events, n_bad_events, x)
    {
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(x, g_stream));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEventWithFlag(x, g_stream, ACL_EVENT_RECORD_DEFAULT));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetEvent(x, g_stream));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEvent(x, &es));
#pragma GCC diagnostic pop
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(x, &rs));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventWaitStatus(x, &ws));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEvent(x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEventWithTimeout(x, 100));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventElapsedTime(&ms, x, g_plain));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventElapsedTime(&ms, g_plain, x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventGetTimestamp(x, &ts));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(g_stream, x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithTimeout(g_stream, x, 0));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithFlag(g_stream, x, 0, ACL_EVENT_WAIT_DEFAULT));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetEventId(x, &id));
    }
    /* The valid ones still work. */
    CHECK_OK(aclrtQueryEventStatus(g_plain, &rs));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
    CHECK_OK(aclrtStreamWaitEvent(g_stream, g_plain));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
}

TEST(event_creation_rejects_wild_flags)
{
    aclrtEvent e = NULL;
    /* WithFlag: any non-empty OR of 0x1/0x2/0x4/0x8, or 0x10 alone, or 0x20 alone. */
    uint32_t bad_legacy[] = {0, 0x40, 0x80, 0x100, 0x11, 0x21, 0x30, 0x3F, 0x41, 0x80000001u, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad_legacy / sizeof bad_legacy[0]; i++) {
        g_detail = "a legacy flag";
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, bad_legacy[i]));
    }
    for (uint32_t f = 1; f <= 0xF; f++) {
        CHECK_OK(aclrtCreateEventWithFlag(&e, f));
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_DEVICE_USE_ONLY));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL));
    CHECK_OK(aclrtDestroyEvent(e));
    /*
     * Ex: any non-empty OR of 0x1/0x2/0x4/0x8, or 0x40 alone; 0, DEVICE_USE_ONLY, EXTERNAL or any bit
     * outside 0x4F is ACL_ERROR_RT_PARAM_INVALID [src] (0x11 = SYNC | DEVICE_USE_ONLY has such a bit).
     */
    uint32_t bad_ex[] = {0, 0x10, 0x20, 0x30, 0x11, 0x21, 0x19, 0x2F, 0x41, 0x48, 0x80, 0x101, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad_ex / sizeof bad_ex[0]; i++) {
        char what[48];
        snprintf(what, sizeof what, "Ex flag 0x%x", bad_ex[i]);
        g_detail = what;
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e, bad_ex[i]));
    }
    g_detail = "";
    for (uint32_t f = 1; f <= 0xF; f++) {
        CHECK_OK(aclrtCreateEventExWithFlag(&e, f));
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    CHECK_OK(aclrtDestroyEvent(e));
}

TEST(event_operations_reject_the_wrong_kind_of_event_and_wild_values)
{
    aclrtEventStatus es;
    aclrtEventWaitStatus ws;
    uint64_t ts;
    float ms;
    /* Record flags. */
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(g_ex, g_stream, 2));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(g_ex, g_stream, 0xFFFFFFFFu));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtRecordEventWithFlag(g_ex, g_stream, ACL_EVENT_RECORD_EXTERNAL));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEvent(g_external, g_stream));
    /* Wait flags and timeouts. */
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(g_stream, g_plain, -1));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(g_stream, g_plain, INT32_MIN));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(g_stream, g_plain, 0, 2));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(g_stream, g_plain, 5, ACL_EVENT_WAIT_EXTERNAL));
    EXPECT_ERR(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
               aclrtStreamWaitEventWithFlag(g_stream, g_plain, 0, ACL_EVENT_WAIT_EXTERNAL));
    /* Synchronize timeouts: ms, -1 forever, > 0 a limit. */
    int32_t timeouts[] = {0, -2, INT32_MIN};
    for (int i = 0; i < 3; i++)
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(g_plain, timeouts[i]));
    /* Waits: a plain event never recorded; events without SYNC; device-only events. */
    aclrtEvent fresh;
    CHECK_OK(aclrtCreateEvent(&fresh));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(g_stream, fresh));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(g_stream, g_nosync));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(g_stream, g_devonly));
    /* Resets: Ex events and legacy events without SYNC are not resettable; device-only ones not from the host. */
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(g_ex, g_stream));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(g_nosync, g_stream));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtResetEvent(g_devonly, g_stream));
    /* Queries Ex events do not take. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(g_ex, &es));
#pragma GCC diagnostic pop
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(g_ex, &ws));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(g_external, &ws));
    /* Timestamps: never recorded; no TIME_LINE; external. */
    EXPECT_ERR(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventGetTimestamp(fresh, &ts));
    EXPECT_ERR(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, fresh, g_plain));
    EXPECT_ERR(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, g_plain, fresh));
    aclrtEvent untimed;
    CHECK_OK(aclrtCreateEventWithFlag(&untimed, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(untimed, g_stream));
    CHECK_OK(aclrtSynchronizeEvent(untimed));
    EXPECT_ERR(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(untimed, &ts));
    EXPECT_ERR(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, g_plain, untimed));
    EXPECT_ERR(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventGetTimestamp(g_external, &ts));
    /* Not complete yet: a gate holds the stream. */
    aclrtStream held;
    aclrtEvent pending;
    CHECK_OK(aclrtCreateStream(&held));
    CHECK_OK(aclrtCreateEvent(&pending));
    atomic_store(&g_gate, 0);
    CHECK_OK(aclrtLaunchHostFunc(held, gate_func, NULL));
    CHECK_OK(aclrtRecordEvent(pending, held));
    EXPECT_ERR(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(pending, &ts));
    EXPECT_ERR(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, g_plain, pending));
    EXPECT_ERR(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(pending, 1));
    atomic_store_explicit(&g_gate, 1, memory_order_release);
    CHECK_OK(aclrtSynchronizeEventWithTimeout(pending, SYNC_LIMIT_MS));
    /* End completed before start: a reversal, not a negative time. */
    CHECK_OK(aclrtRecordEvent(g_plain, held));
    CHECK_OK(aclrtSynchronizeEvent(g_plain));
    EXPECT_ERR(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, aclrtEventElapsedTime(&ms, g_plain, pending));
    CHECK_OK(aclrtEventElapsedTime(&ms, pending, g_plain));
    CHECK(ms >= 0.0f);
    CHECK_OK(aclrtDestroyEvent(pending));
    CHECK_OK(aclrtDestroyEvent(untimed));
    CHECK_OK(aclrtDestroyEvent(fresh));
    CHECK_OK(aclrtDestroyStream(held));
    /* Double destroy. */
    aclrtEvent twice;
    CHECK_OK(aclrtCreateEventExWithFlag(&twice, ACL_EVENT_SYNC));
    CHECK_OK(aclrtDestroyEvent(twice));
    EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(twice));
    CHECK_OK(aclrtSetOpWaitTimeout(0)); /* any value is a valid number of seconds */
}

/*
 * ACL_EVENT_EXTERNAL events exist for model capture: outside a capture they
 * cannot be recorded (207000), and they were created without ACL_EVENT_SYNC,
 * so waits and resets on them are ACL_ERROR_RT_FEATURE_NOT_SUPPORT as for any
 * event without SYNC (SEMANTICS.md, "Waits on events without SYNC" and
 * "aclrtResetEvent on other events"). Accepting the wait would block the
 * stream for a record that can never come.
 */
TEST(external_events_cannot_be_waited_for_or_reset_outside_a_capture)
{
    aclrtStream s;
    aclrtEvent ext;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateEventWithFlag(&ext, ACL_EVENT_EXTERNAL));
    aclError wait_rc = aclrtStreamWaitEvent(s, ext);
    aclError reset_rc = aclrtResetEvent(ext, s);
    (void)aclGetRecentErrMsg();
    CHECK_OK(aclrtDestroyEvent(ext)); /* releases a wait that was wrongly accepted */
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, SYNC_LIMIT_MS));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, wait_rc);
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, reset_rc);
}

/* ------------------------------------------------------------------------
 * Tasks and memory
 * ------------------------------------------------------------------------ */

TEST(task_and_memory_functions_reject_bad_arguments)
{
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(g_stream, NULL, NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtxLaunchHostKernel(g_stream, 4, NULL, NULL));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtxLaunchHostKernel(g_stream, 0, noop_kernel, NULL));

    void *dev = NULL, *host = NULL;
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 64));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(&host, 0));
    CHECK(dev == NULL && host == NULL);
    CHECK_OK(aclrtMalloc(&dev, 256, (aclrtMemMallocPolicy)0xdead)); /* unknown policies are accepted */
    CHECK_OK(aclrtMallocHost(&host, 256));

    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(NULL));
    int local = 0;
    void *libc = malloc(64);
    void *not_ours[] = {&local, libc, (char *)dev + 1, host, (void *)0x1, (void *)(uintptr_t)0xdeadbeefu};
    for (int i = 0; i < 6; i++) {
        g_detail = "a pointer aclrtMalloc did not return";
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(not_ours[i]));
    }
    void *not_host[] = {&local, libc, (char *)host + 1, dev, (void *)0x1};
    for (int i = 0; i < 5; i++) {
        g_detail = "a pointer aclrtMallocHost did not return";
        EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(not_host[i]));
    }
    free(libc);

    /* Copies and memsets: NULL pointers, sizes, kinds. */
    memset(dev, 0x11, 256);
    memset(host, 0x22, 256);
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(NULL, 256, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dev, 256, NULL, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, 16, host, 17, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, 0, host, 1, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dev, 256, host, 16, (aclrtMemcpyKind)8));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dev, 256, host, 16, (aclrtMemcpyKind)-1));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM,
               aclrtMemcpyAsync(NULL, 256, host, 16, ACL_MEMCPY_HOST_TO_DEVICE, g_stream));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(dev, 256, NULL, 16, ACL_MEMCPY_HOST_TO_DEVICE, g_stream));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID,
               aclrtMemcpyAsync(dev, 16, host, 17, ACL_MEMCPY_HOST_TO_DEVICE, g_stream));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM,
               aclrtMemcpyAsync(dev, 256, host, 16, (aclrtMemcpyKind)99, g_stream));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, 256, 0, 16));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(dev, 16, 0, 17));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(dev, 0, 0, 1));
    EXPECT_ERR(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(NULL, 256, 0, 16, g_stream));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(dev, 16, 0, 17, g_stream));
    FOR_BAD(bad_streams, n_bad_streams, x)
    {
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemcpyAsync(dev, 256, host, 16, ACL_MEMCPY_HOST_TO_DEVICE, x));
        EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemsetAsync(dev, 256, 0, 16, x));
    }
    /* None of the rejected calls wrote anything; count 0 is a successful no-op. */
    CHECK_OK(aclrtMemcpy(dev, 256, host, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemset(dev, 256, 0x7F, 0));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    for (int i = 0; i < 256; i++) {
        CHECK_EQ(0x11, ((unsigned char *)dev)[i]);
        CHECK_EQ(0x22, ((unsigned char *)host)[i]);
    }
    CHECK_OK(aclrtFree(dev));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(dev)); /* twice */
    CHECK_OK(aclrtFreeHost(host));
    EXPECT_ERR(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(host));
    const char *backend = aclrtxGetBackendName();
    CHECK(backend != NULL && strcmp(backend, "host") == 0);
}

/* ------------------------------------------------------------------------
 * Fuzz: random calls, random mixes of valid / stale / garbage / NULL.
 * ------------------------------------------------------------------------ */

#define FZ_CALLS 4000
#define FZ_SCRATCH 4
#define FZ_STALE 16
#define FZ_BUF 256

static aclrtStream fz_work;                   /* never destroyed by the fuzz; counted work goes here */
static aclrtStream fz_quiet;                  /* the fuzz launches nothing here: host-function subscriptions */
static aclrtStream fz_scratch[FZ_SCRATCH];    /* created / destroyed by the fuzz (NULL: empty) */
static aclrtEvent fz_scratch_event;           /* destroyed / recreated by the fuzz; recorded at creation */
static aclrtContext fz_scratch_ctx[2];
static void *fz_stale[FZ_STALE];              /* dead handles of any kind */
static int fz_nstale;
static void *fz_dev[2], *fz_host[2];          /* allocations the fuzz may free */
static void *fz_freed;                        /* an allocation already freed */
static unsigned char *fz_pinned_a, *fz_pinned_b, *fz_pinned_c; /* async copies and memsets: fz_work's tasks only */
static unsigned char fz_sync_a[FZ_BUF], fz_sync_b[FZ_BUF];        /* synchronous copies and memsets */
static atomic_long fz_counted;
static long fz_counted_launched;
static int fz_bad, fz_unnamed;
static long fz_ok, fz_failed;
static int fz_codes_seen[16], fz_ncodes;

static void fz_count(void *p)
{
    (void)p;
    atomic_fetch_add(&fz_counted, 1);
}

static void fz_add_stale(void *h)
{
    fz_stale[fz_nstale++ % FZ_STALE] = h;
}

static void *fz_pick_stale(uint64_t *rng)
{
    if (fz_nstale == 0)
        return g_stale_stream;
    int n = fz_nstale < FZ_STALE ? fz_nstale : FZ_STALE;
    return fz_stale[rng_next(rng) % (uint64_t)n];
}

static void *fz_garbage(uint64_t *rng)
{
    switch (rng_next(rng) % 6) {
    case 0: return (void *)0x1;
    case 1: return (void *)(uintptr_t)0xdeadbeefu;
    case 2: return &g_local_int;
    case 3: return forge_generation(rng_next(rng) % 2 ? g_stream : g_plain);
    case 4: return forge_index(g_ctx2);
    default: return (void *)(uintptr_t)rng_next(rng);
    }
}

/* A stream argument. `for_destroy`: only handles the fuzz may lose. */
static aclrtStream fz_stream(uint64_t *rng, bool for_destroy)
{
    switch (rng_next(rng) % 10) {
    case 0:
    case 1:
    case 2: return for_destroy ? fz_scratch[rng_next(rng) % FZ_SCRATCH] : fz_work;
    case 3: return fz_scratch[rng_next(rng) % FZ_SCRATCH];
    case 4: return NULL;
    case 5: return for_destroy ? g_default : g_other;
    case 6: return fz_pick_stale(rng);
    case 7: return fz_garbage(rng);
    case 8: return rng_next(rng) % 2 ? (void *)g_plain : (void *)g_ctx;
    default: return g_default;
    }
}

/* An event argument. `waitable`: no event a wait could block on forever (EXTERNAL). */
static aclrtEvent fz_event(uint64_t *rng, bool waitable)
{
    switch (rng_next(rng) % 12) {
    case 0: return g_plain;
    case 1: return g_ex;
    case 2: return g_sync;
    case 3: return g_nosync;
    case 4: return g_devonly;
    case 5: return waitable ? g_plain : g_external;
    case 6: return fz_scratch_event;
    case 7: return NULL;
    case 8: return fz_pick_stale(rng);
    case 9: return fz_garbage(rng);
    case 10: return rng_next(rng) % 2 ? (void *)g_stream : (void *)g_ctx;
    default: return g_plain;
    }
}

/* An event for aclrtResetEvent: never a valid SYNC event (a reset makes later waits wait for a next record). */
static aclrtEvent fz_event_for_reset(uint64_t *rng)
{
    aclrtEvent e = fz_event(rng, false);
    if (e == g_sync || e == fz_scratch_event)
        return g_ex;
    return e;
}

static aclrtContext fz_context(uint64_t *rng, bool for_destroy)
{
    switch (rng_next(rng) % 8) {
    case 0: return g_ctx;
    case 1: return for_destroy ? fz_scratch_ctx[0] : g_ctx2;
    case 2: return fz_scratch_ctx[rng_next(rng) % 2];
    case 3: return NULL;
    case 4: return fz_pick_stale(rng);
    case 5: return fz_garbage(rng);
    case 6: return rng_next(rng) % 2 ? (void *)g_stream : (void *)g_plain;
    default: return g_ctx;
    }
}

/*
 * The stream of an async copy or memset: fz_work or a handle that is not a
 * live stream, so that the copies never run on two streams at once (they
 * share their buffers).
 */
static aclrtStream fz_copy_stream(uint64_t *rng)
{
    switch (rng_next(rng) % 5) {
    case 0: return fz_pick_stale(rng);
    case 1: return fz_garbage(rng);
    case 2: return g_plain;
    default: return fz_work;
    }
}

static void fz_forget_allocation(void *p)
{
    for (int k = 0; k < 2; k++) {
        if (fz_dev[k] == p)
            fz_dev[k] = NULL;
        if (fz_host[k] == p)
            fz_host[k] = NULL;
    }
    fz_freed = p;
}

static void *fz_maybe(uint64_t *rng, void *p)
{
    return rng_next(rng) % 8 == 0 ? NULL : p;
}

/* Is rc one of the codes listed (0-terminated after the first entry)? */
static bool fz_allowed(aclError rc, const int *codes)
{
    if (rc == ACL_SUCCESS)
        return true;
    for (; *codes != -1; codes++)
        if (rc == *codes)
            return true;
    return false;
}

static void fz_check(const char *call, aclError rc, const int *codes, bool named)
{
    if (rc == ACL_SUCCESS) {
        fz_ok++;
    } else {
        fz_failed++;
        int i = 0;
        while (i < fz_ncodes && fz_codes_seen[i] != rc)
            i++;
        if (i == fz_ncodes && fz_ncodes < 16)
            fz_codes_seen[fz_ncodes++] = rc;
    }
    if (!fz_allowed(rc, codes)) {
        if (fz_bad++ < 10)
            fprintf(stderr, "  fuzz: %s returned %d, not a documented code for it\n", call, rc);
    }
    if (rc != ACL_SUCCESS && named) {
        const char *line = newest_error_line();
        if (line == NULL || strstr(line, bracketed_name(call)) == NULL) {
            if (fz_unnamed++ < 10)
                fprintf(stderr, "  fuzz: %s failed with %d; its message line: %s\n", call, rc,
                        line ? line : "(none)");
        }
    } else {
        (void)aclGetRecentErrMsg();
    }
}

#define CODES(...) ((const int[]){__VA_ARGS__, -1})
#define FZ(codes, call)                                                                  \
    do {                                                                                 \
        (void)aclGetRecentErrMsg();                                                      \
        aclError fz_rc_ = (call);                                                        \
        fz_check(#call, fz_rc_, codes, true);                                            \
        last_rc = fz_rc_;                                                                \
    } while (0)

/* Codes any call taking a stream to submit work to may return. */
#define SUBMIT P, H, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_CONTEXT

static void fz_store_stream(aclrtStream s)
{
    for (int i = 0; i < FZ_SCRATCH; i++)
        if (fz_scratch[i] == NULL) {
            fz_scratch[i] = s;
            return;
        }
    if (aclrtDestroyStreamForce(s) == ACL_SUCCESS)
        fz_add_stale(s);
}

static void fz_forget_stream(aclrtStream s)
{
    for (int i = 0; i < FZ_SCRATCH; i++)
        if (fz_scratch[i] == s && s != NULL)
            fz_scratch[i] = NULL;
    fz_add_stale(s);
}

static void fz_store_ctx(aclrtContext c)
{
    for (int i = 0; i < 2; i++)
        if (fz_scratch_ctx[i] == NULL) {
            fz_scratch_ctx[i] = c;
            return;
        }
    if (aclrtDestroyContext(c) == ACL_SUCCESS)
        fz_add_stale(c);
}

/* A fresh scratch event, recorded at once (so that no wait on it waits for a next record). */
static bool fz_new_scratch_event(uint64_t *rng)
{
    aclrtContext cur = NULL;
    (void)aclrtGetCurrentContext(&cur);
    aclError rc = aclrtSetCurrentContext(g_ctx);
    if (rc == ACL_SUCCESS) {
        switch (rng_next(rng) % 3) {
        case 0: rc = aclrtCreateEvent(&fz_scratch_event); break;
        case 1: rc = aclrtCreateEventExWithFlag(&fz_scratch_event, ACL_EVENT_SYNC); break;
        default: rc = aclrtCreateEventWithFlag(&fz_scratch_event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE); break;
        }
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtRecordEvent(fz_scratch_event, fz_work);
    if (cur != NULL)
        (void)aclrtSetCurrentContext(cur);
    (void)aclGetRecentErrMsg();
    return rc == ACL_SUCCESS;
}

static void fz_exception_cb(aclrtExceptionInfo *info)
{
    (void)info;
}

static void fz_stream_state_cb(aclrtStream stm, aclrtStreamState state, void *args)
{
    (void)stm;
    (void)state;
    (void)args;
}

static void fz_device_state_cb(int32_t deviceId, aclrtDeviceState state, void *args)
{
    (void)deviceId;
    (void)state;
    (void)args;
}

static void fz_one_call(uint64_t *rng)
{
    aclError last_rc = ACL_SUCCESS;
    aclrtStream s, out_s = NULL;
    aclrtEvent e, out_e = NULL;
    aclrtContext c, out_c = NULL;
    aclrtStreamStatus sst = (aclrtStreamStatus)77;
    aclrtEventStatus est = (aclrtEventStatus)77;
    aclrtEventRecordedStatus rst = (aclrtEventRecordedStatus)77;
    aclrtEventWaitStatus wst = (aclrtEventWaitStatus)77;
    aclrtStreamAttrValue av;
    aclrtStreamConfigHandle cfg;
    int32_t i32;
    uint32_t u32;
    uint64_t u64;
    float ms;
    void *ptr = NULL;
    int32_t sync_timeouts[] = {-2, -1, 0, 1, 1000, INT32_MIN};
    int32_t wait_timeouts[] = {-1, 0, 3600, INT32_MIN};
    int32_t devices[] = {-1, 0, 1, 2, 64, INT32_MAX};
    uint32_t legacy_flags[] = {0, 1, 8, 9, 0x10, 0x11, 0x20, 0x40, 0xFFFFFFFFu};
    uint32_t ex_flags[] = {0, 1, 8, 9, 0x10, 0x40, 0x41, 0x80, 0xFFFFFFFFu};
    uint32_t stream_flags[] = {0, ACL_STREAM_FAST_LAUNCH, ACL_STREAM_FAST_SYNC, ACL_STREAM_PERSISTENT, 0x100,
                               0xFFFFFFFFu};
    size_t sizes[] = {0, 1, 16, FZ_BUF};
    size_t maxes[] = {0, 1, 16, FZ_BUF, SIZE_MAX};
    unsigned op = (unsigned)(rng_next(rng) % 64);
    memset(&av, 0, sizeof av);
    switch (op) {
    case 0:
        FZ(CODES(SUBMIT), aclrtLaunchHostFunc(fz_stream(rng, false), rng_next(rng) % 6 ? noop_func : NULL, NULL));
        break;
    case 1:
        FZ(CODES(SUBMIT, R), aclrtxLaunchHostKernel(fz_stream(rng, false), (uint32_t)(rng_next(rng) % 4),
                                                    rng_next(rng) % 6 ? noop_kernel : NULL, NULL));
        break;
    case 2: FZ(CODES(SUBMIT, F), aclrtRecordEvent(fz_event(rng, false), fz_stream(rng, false))); break;
    case 3:
        FZ(CODES(SUBMIT, F, ACL_ERROR_RT_STREAM_NOT_CAPTURED),
           aclrtRecordEventWithFlag(fz_event(rng, false), fz_stream(rng, false), (uint32_t)(rng_next(rng) % 3)));
        break;
    case 4: FZ(CODES(SUBMIT, R, F), aclrtStreamWaitEvent(fz_stream(rng, false), fz_event(rng, true))); break;
    case 5:
        FZ(CODES(SUBMIT, R, F), aclrtStreamWaitEventWithTimeout(fz_stream(rng, false), fz_event(rng, true),
                                                                wait_timeouts[rng_next(rng) % 4]));
        break;
    case 6:
        FZ(CODES(SUBMIT, R, F, ACL_ERROR_RT_STREAM_NOT_CAPTURED),
           aclrtStreamWaitEventWithFlag(fz_stream(rng, false), fz_event(rng, true),
                                        rng_next(rng) % 2 ? 3600u : 0u, (uint32_t)(rng_next(rng) % 3)));
        break;
    case 7: FZ(CODES(SUBMIT, R, F), aclrtResetEvent(fz_event_for_reset(rng), fz_stream(rng, false))); break;
    case 8:
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        FZ(CODES(P, H, F), aclrtQueryEvent(fz_event(rng, false), fz_maybe(rng, &est)));
#pragma GCC diagnostic pop
        if (last_rc == ACL_SUCCESS && est != ACL_EVENT_STATUS_COMPLETE && est != ACL_EVENT_STATUS_NOT_READY)
            fz_bad++;
        break;
    case 9:
        FZ(CODES(P, H), aclrtQueryEventStatus(fz_event(rng, false), fz_maybe(rng, &rst)));
        if (last_rc == ACL_SUCCESS && rst != ACL_EVENT_RECORDED_STATUS_COMPLETE &&
            rst != ACL_EVENT_RECORDED_STATUS_NOT_READY)
            fz_bad++;
        break;
    case 10:
        FZ(CODES(P, H, F), aclrtQueryEventWaitStatus(fz_event(rng, false), fz_maybe(rng, &wst)));
        if (last_rc == ACL_SUCCESS && wst != ACL_EVENT_WAIT_STATUS_COMPLETE && wst != ACL_EVENT_WAIT_STATUS_NOT_READY)
            fz_bad++;
        break;
    case 11: FZ(CODES(P, H), aclrtSynchronizeEvent(fz_event(rng, false))); break;
    case 12:
        FZ(CODES(P, H, R, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT),
           aclrtSynchronizeEventWithTimeout(fz_event(rng, false), sync_timeouts[rng_next(rng) % 6]));
        break;
    case 13:
        FZ(CODES(P, H, F, ACL_ERROR_RT_INTERNAL_ERROR, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                 ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL),
           aclrtEventElapsedTime(fz_maybe(rng, &ms), fz_event(rng, false), fz_event(rng, false)));
        break;
    case 14:
        FZ(CODES(P, H, F, ACL_ERROR_RT_INTERNAL_ERROR, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID),
           aclrtEventGetTimestamp(fz_event(rng, false), fz_maybe(rng, &u64)));
        break;
    case 15: FZ(CODES(P, H), aclrtGetEventId(fz_event(rng, false), fz_maybe(rng, &u32))); break;
    case 16: FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtGetEventAvailNum(fz_maybe(rng, &u32))); break;
    case 17: FZ(CODES(P), aclrtSetOpWaitTimeout(rng_next(rng) % 2 ? 0u : 3600u)); break;
    case 18:
        FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtCreateEvent(fz_maybe(rng, &out_e)));
        if (last_rc == ACL_SUCCESS && aclrtDestroyEvent(out_e) == ACL_SUCCESS)
            fz_add_stale(out_e);
        break;
    case 19:
        FZ(CODES(P, R, ACL_ERROR_RT_CONTEXT_NULL),
           aclrtCreateEventWithFlag(fz_maybe(rng, &out_e), legacy_flags[rng_next(rng) % 9]));
        if (last_rc == ACL_SUCCESS && aclrtDestroyEvent(out_e) == ACL_SUCCESS)
            fz_add_stale(out_e);
        break;
    case 20:
        FZ(CODES(P, R, F, ACL_ERROR_RT_CONTEXT_NULL),
           aclrtCreateEventExWithFlag(fz_maybe(rng, &out_e), ex_flags[rng_next(rng) % 9]));
        if (last_rc == ACL_SUCCESS && aclrtDestroyEvent(out_e) == ACL_SUCCESS)
            fz_add_stale(out_e);
        break;
    case 21:
        e = rng_next(rng) % 3 ? fz_scratch_event : fz_event(rng, false);
        if (e == g_plain || e == g_ex || e == g_sync || e == g_nosync || e == g_devonly || e == g_external)
            e = fz_scratch_event; /* the fixed events stay */
        FZ(CODES(P, H), aclrtDestroyEvent(e));
        if (last_rc == ACL_SUCCESS) {
            fz_add_stale(e);
            if (!fz_new_scratch_event(rng))
                fz_bad++;
        }
        break;
    case 22:
        FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtCreateStream(fz_maybe(rng, &out_s)));
        if (last_rc == ACL_SUCCESS)
            fz_store_stream(out_s);
        break;
    case 23:
        FZ(CODES(P, F, ACL_ERROR_RT_CONTEXT_NULL),
           aclrtCreateStreamWithConfig(fz_maybe(rng, &out_s), (uint32_t)rng_next(rng),
                                       stream_flags[rng_next(rng) % 6]));
        if (last_rc == ACL_SUCCESS)
            fz_store_stream(out_s);
        break;
    case 24:
        memset(&cfg, 0, sizeof cfg);
        cfg.priority = (uint32_t)rng_next(rng);
        cfg.flag = stream_flags[rng_next(rng) % 6];
        FZ(CODES(P, F, ACL_ERROR_RT_CONTEXT_NULL), aclrtCreateStreamV2(fz_maybe(rng, &out_s), fz_maybe(rng, &cfg)));
        if (last_rc == ACL_SUCCESS)
            fz_store_stream(out_s);
        break;
    case 25:
        s = fz_stream(rng, true);
        if (rng_next(rng) % 2)
            FZ(CODES(P, H, R, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_CONTEXT), aclrtDestroyStream(s));
        else
            FZ(CODES(P, H, R, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_CONTEXT), aclrtDestroyStreamForce(s));
        if (last_rc == ACL_SUCCESS)
            fz_forget_stream(s);
        break;
    case 26: FZ(CODES(H, ACL_ERROR_RT_CONTEXT_NULL), aclrtSynchronizeStream(fz_stream(rng, false))); break;
    case 27:
        FZ(CODES(H, R, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT),
           aclrtSynchronizeStreamWithTimeout(fz_stream(rng, false), sync_timeouts[rng_next(rng) % 6]));
        break;
    case 28:
        FZ(CODES(P, H, ACL_ERROR_RT_CONTEXT_NULL), aclrtStreamQuery(fz_stream(rng, false), fz_maybe(rng, &sst)));
        if (last_rc == ACL_SUCCESS && sst != ACL_STREAM_STATUS_COMPLETE && sst != ACL_STREAM_STATUS_NOT_READY)
            fz_bad++;
        break;
    case 29: FZ(CODES(P, H, ACL_ERROR_RT_CONTEXT_NULL), aclrtStreamGetId(fz_stream(rng, false), fz_maybe(rng, &i32))); break;
    case 30:
        FZ(CODES(P, H, ACL_ERROR_RT_CONTEXT_NULL), aclrtStreamGetPriority(fz_stream(rng, false), fz_maybe(rng, &u32)));
        if (last_rc == ACL_SUCCESS && u32 > 7)
            fz_bad++;
        break;
    case 31: FZ(CODES(P, H, ACL_ERROR_RT_CONTEXT_NULL), aclrtStreamGetFlags(fz_stream(rng, false), fz_maybe(rng, &u32))); break;
    case 32:
        /* Never ACL_STOP_ON_FAILURE on a live stream: it would change what later calls may return. */
        s = fz_stream(rng, false);
        FZ(CODES(H, R, ACL_ERROR_RT_CONTEXT_NULL),
           aclrtSetStreamFailureMode(s, rng_next(rng) % 2 ? 0 : (rng_next(rng) % 2 ? 2 : UINT64_MAX)));
        break;
    case 33:
        av.failureMode = rng_next(rng) % 2 ? 0 : 3;
        FZ(CODES(P, H, R, F, ACL_ERROR_RT_CONTEXT_NULL),
           aclrtSetStreamAttribute(fz_stream(rng, false), (aclrtStreamAttr)(rng_next(rng) % 7),
                                   fz_maybe(rng, &av)));
        break;
    case 34:
        FZ(CODES(P, H, R, ACL_ERROR_RT_CONTEXT_NULL),
           aclrtGetStreamAttribute(fz_stream(rng, false), (aclrtStreamAttr)(rng_next(rng) % 7), fz_maybe(rng, &av)));
        break;
    case 35: FZ(CODES(P), aclrtDeviceGetStreamPriorityRange(fz_maybe(rng, &i32), fz_maybe(rng, &i32))); break;
    case 36: FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtGetStreamAvailableNum(fz_maybe(rng, &u32))); break;
    case 37: FZ(CODES(P, H), aclrtSetCurrentContext(fz_context(rng, false))); break;
    case 38: FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtGetCurrentContext(fz_maybe(rng, &out_c))); break;
    case 39: FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtCtxGetCurrentDefaultStream(fz_maybe(rng, &out_s))); break;
    case 40:
        FZ(CODES(P, ACL_ERROR_RT_INVALID_DEVICEID),
           aclrtCreateContext(fz_maybe(rng, &out_c), devices[rng_next(rng) % 6]));
        if (last_rc == ACL_SUCCESS)
            fz_store_ctx(out_c);
        break;
    case 41:
        c = fz_context(rng, true);
        FZ(CODES(P, H, R), aclrtDestroyContext(c));
        if (last_rc == ACL_SUCCESS) {
            for (int i = 0; i < 2; i++)
                if (fz_scratch_ctx[i] == c)
                    fz_scratch_ctx[i] = NULL;
            fz_add_stale(c);
        }
        break;
    case 42: FZ(CODES(ACL_ERROR_RT_INVALID_DEVICEID), aclrtSetDevice(devices[rng_next(rng) % 6])); break;
    case 43: {
        int32_t dev = rng_next(rng) % 2 ? devices[rng_next(rng) % 6] : 1;
        if (dev == 0)
            dev = -1; /* device 0 holds everything else */
        if (rng_next(rng) % 2)
            FZ(CODES(ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_CONTEXT_NULL), aclrtResetDevice(dev));
        else
            FZ(CODES(ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_CONTEXT_NULL), aclrtResetDeviceForce(dev));
        break;
    }
    case 44: FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL), aclrtGetDevice(fz_maybe(rng, &i32))); break;
    case 45: FZ(CODES(P), aclrtGetDeviceCount(fz_maybe(rng, &u32))); break;
    case 46: FZ(CODES(ACL_ERROR_RT_CONTEXT_NULL), aclrtSynchronizeDevice()); break;
    case 47:
        FZ(CODES(R, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT),
           aclrtSynchronizeDeviceWithTimeout(sync_timeouts[rng_next(rng) % 6]));
        break;
    case 48: FZ(CODES(P), aclrtGetRunMode(fz_maybe(rng, (void *)&u32))); break;
    case 49: {
        int k = (int)(rng_next(rng) % 2);
        if (fz_dev[k] == NULL) {
            FZ(CODES(P, ACL_ERROR_RT_CONTEXT_NULL),
               aclrtMalloc(fz_maybe(rng, &ptr), sizes[rng_next(rng) % 4], (aclrtMemMallocPolicy)rng_next(rng)));
            if (last_rc == ACL_SUCCESS)
                fz_dev[k] = ptr;
        } else {
            void *cands[] = {fz_dev[k], NULL, &g_local_int, fz_freed, fz_pinned_a, (char *)fz_dev[k] + 1};
            ptr = cands[rng_next(rng) % 6];
            FZ(CODES(P, R), aclrtFree(ptr));
            if (last_rc == ACL_SUCCESS)
                fz_forget_allocation(ptr); /* fz_freed may have been reused by a later allocation */
        }
        break;
    }
    case 50: {
        int k = (int)(rng_next(rng) % 2);
        if (fz_host[k] == NULL) {
            FZ(CODES(P), aclrtMallocHost(fz_maybe(rng, &ptr), sizes[rng_next(rng) % 4]));
            if (last_rc == ACL_SUCCESS)
                fz_host[k] = ptr;
        } else {
            void *cands[] = {fz_host[k], NULL, &g_local_int, fz_freed, fz_dev[0], (char *)fz_host[k] + 1};
            ptr = cands[rng_next(rng) % 6];
            FZ(CODES(P, R), aclrtFreeHost(ptr));
            if (last_rc == ACL_SUCCESS)
                fz_forget_allocation(ptr);
        }
        break;
    }
    case 51:
        FZ(CODES(P, R), aclrtMemcpy(fz_maybe(rng, fz_sync_a), maxes[rng_next(rng) % 5], fz_maybe(rng, fz_sync_b),
                                    sizes[rng_next(rng) % 4], (aclrtMemcpyKind)(rng_next(rng) % 10)));
        break;
    case 52:
        FZ(CODES(SUBMIT, R),
           aclrtMemcpyAsync(fz_maybe(rng, fz_pinned_a), maxes[rng_next(rng) % 5], fz_maybe(rng, fz_pinned_b),
                            sizes[rng_next(rng) % 4], (aclrtMemcpyKind)(rng_next(rng) % 10), fz_copy_stream(rng)));
        break;
    case 53:
        FZ(CODES(P, R), aclrtMemset(fz_maybe(rng, fz_sync_a), maxes[rng_next(rng) % 5], (int32_t)rng_next(rng),
                                    sizes[rng_next(rng) % 4]));
        break;
    case 54:
        FZ(CODES(SUBMIT, R), aclrtMemsetAsync(fz_maybe(rng, fz_pinned_c), maxes[rng_next(rng) % 5],
                                              (int32_t)rng_next(rng), sizes[rng_next(rng) % 4], fz_copy_stream(rng)));
        break;
    case 55: {
        /* The error functions: a bad level is an error; level 0 returns the stored code, whatever it is. */
        aclrtLastErrLevel level = (aclrtLastErrLevel)(rng_next(rng) % 3 == 0 ? 1 : 0);
        (void)aclGetRecentErrMsg();
        bool get = rng_next(rng) % 2 != 0;
        aclError rc = get ? aclrtGetLastError(level) : aclrtPeekAtLastError(level);
        if (level != ACL_RT_THREAD_LEVEL)
            fz_check(get ? "aclrtGetLastError" : "aclrtPeekAtLastError", rc, CODES(P), true);
        else
            (void)aclGetRecentErrMsg();
        break;
    }
    case 56: {
        aclError rc = aclInit(NULL); /* already initialised: counted, harmless */
        if (rc != ACL_ERROR_REPEAT_INITIALIZE && fz_bad++ < 10)
            fprintf(stderr, "  fuzz: aclInit(NULL) returned %d\n", rc);
        (void)aclGetRecentErrMsg();
        break;
    }
    case 57:
        /* Never subscribed by the fuzz: refused, nothing queued. */
        FZ(CODES(SUBMIT, ACL_ERROR_RT_STREAM_NO_CB_REG),
           aclrtLaunchCallback(rng_next(rng) % 6 ? noop_func : NULL, NULL, (aclrtCallbackBlockType)(rng_next(rng) % 3),
                               fz_stream(rng, false)));
        break;
    case 58: {
        /* Subscribe and unsubscribe at once (a subscribed stream would take callbacks nobody runs). */
        uint64_t tid = rng_next(rng) % 2 ? (uint64_t)pthread_self() : rng_next(rng);
        s = fz_stream(rng, false);
        bool host = rng_next(rng) % 2 != 0;
        const int *codes = CODES(P, H, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 ACL_ERROR_RT_THREAD_SUBSCRIBE, ACL_ERROR_RT_OVER_LIMIT);
        if (host) {
            /*
             * Not a live stream the fuzz launches onto: a host function its
             * executor reaches between the two calls is handed to the thread,
             * which never processes it, and a synchronize would wait forever.
             */
            aclrtStream not_live[] = {NULL, fz_pick_stale(rng), fz_garbage(rng), g_plain};
            s = rng_next(rng) % 2 ? fz_quiet : not_live[rng_next(rng) % 4];
            FZ(codes, aclrtSubscribeHostFunc(tid, s));
            FZ(codes, aclrtUnSubscribeHostFunc(tid, s));
        } else {
            FZ(codes, aclrtSubscribeReport(tid, s));
            FZ(codes, aclrtUnSubscribeReport(tid, s));
        }
        break;
    }
    case 59: {
        int32_t timeouts[] = {0, -2, 1, INT32_MIN};
        int32_t t = timeouts[rng_next(rng) % 4];
        if (rng_next(rng) % 2)
            FZ(CODES(P, ACL_ERROR_RT_THREAD_SUBSCRIBE, ACL_ERROR_RT_REPORT_TIMEOUT), aclrtProcessReport(t));
        else
            FZ(CODES(P, ACL_ERROR_RT_THREAD_SUBSCRIBE, ACL_ERROR_RT_REPORT_TIMEOUT), aclrtProcessHostFunc(t));
        break;
    }
    case 60:
        /* Only streams whose work the fuzz may lose; a stop is always undone by an abort. */
        s = fz_stream(rng, true);
        if (s == g_default)
            s = NULL;
        if (rng_next(rng) % 2)
            FZ(CODES(P, H, R, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_CONTEXT), aclrtStreamStop(s));
        FZ(CODES(P, H, R, ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_STREAM_CONTEXT), aclrtStreamAbort(s));
        break;
    case 61: {
        aclrtExceptionInfoCallback cb = rng_next(rng) % 3 ? fz_exception_cb : NULL;
        switch (rng_next(rng) % 3) {
        case 0: FZ(CODES(R), aclrtExceptionInfoCallbackRegister(cb)); break;
        case 1: FZ(CODES(R), aclrtExceptionInfoCallbackUnregister(cb)); break;
        default: FZ(CODES(R), aclrtSetExceptionInfoCallback(cb)); break;
        }
        if (aclrtGetTaskIdFromExceptionInfo(NULL) != 0xFFFFFFFFu && fz_bad++ < 10)
            fprintf(stderr, "  fuzz: aclrtGetTaskIdFromExceptionInfo(NULL) is not 0xFFFFFFFF\n");
        break;
    }
    case 62: {
        const char *names[] = {NULL, "", "fuzz", "fuzz2"};
        const char *name = names[rng_next(rng) % 4];
        if (rng_next(rng) % 2)
            FZ(CODES(P, R), aclrtRegStreamStateCallback(name, rng_next(rng) % 2 ? fz_stream_state_cb : NULL, NULL));
        else
            FZ(CODES(P, R), aclrtRegDeviceStateCallback(name, rng_next(rng) % 2 ? fz_device_state_cb : NULL, NULL));
        break;
    }
    default: {
        const char *name = aclrtxGetBackendName();
        if ((name == NULL || strcmp(name, "host") != 0) && fz_bad++ < 10)
            fprintf(stderr, "  fuzz: aclrtxGetBackendName returned %s\n", name ? name : "NULL");
        break;
    }
    }
}

TEST(fuzz_random_calls_return_documented_codes_and_lose_no_work)
{
    uint64_t rng = 0xF0220F022ull;
    const char *env = getenv("FUZZ_SEED");
    if (env != NULL && *env != '\0')
        rng = strtoull(env, NULL, 0);
    printf("bad_input: fuzz seed 0x%llx, %d calls\n", (unsigned long long)rng, FZ_CALLS);
    CHECK_OK(aclrtSetCurrentContext(g_ctx));
    CHECK_OK(aclrtCreateStream(&fz_work));
    CHECK_OK(aclrtCreateStream(&fz_quiet));
    CHECK_OK(aclrtMallocHost((void **)&fz_pinned_a, FZ_BUF));
    CHECK_OK(aclrtMallocHost((void **)&fz_pinned_b, FZ_BUF));
    CHECK_OK(aclrtMallocHost((void **)&fz_pinned_c, FZ_BUF));
    CHECK(fz_new_scratch_event(&rng));
    atomic_store(&fz_counted, 0);
    fz_counted_launched = 0;
    for (int i = 0; i < FZ_CALLS; i++) {
        fz_one_call(&rng);
        if (i % 4 == 0) { /* work queued between the calls must all run */
            CHECK_OK(aclrtSetCurrentContext(g_ctx));
            CHECK_OK(aclrtLaunchHostFunc(fz_work, fz_count, NULL));
            fz_counted_launched++;
        }
    }
    CHECK_OK(aclrtSetCurrentContext(g_ctx));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(fz_work, SYNC_LIMIT_MS));
    CHECK_EQ(fz_counted_launched, atomic_load(&fz_counted));
    printf("bad_input: fuzz: %ld calls succeeded, %ld failed, with %d distinct codes:", fz_ok, fz_failed, fz_ncodes);
    for (int i = 0; i < fz_ncodes; i++)
        printf(" %d", fz_codes_seen[i]);
    printf("\n");
    CHECK_EQ(0, fz_bad);
    CHECK_EQ(0, fz_unnamed);
    /* The mix did both (a fuzz that only ever failed, or never did, would prove little). */
    CHECK(fz_ok > FZ_CALLS / 10);
    CHECK(fz_failed > FZ_CALLS / 10);
    CHECK(fz_ncodes >= 8);
    CHECK_OK(aclrtSynchronizeDeviceWithTimeout(SYNC_LIMIT_MS));
    /* Clean up what the fuzz left. */
    for (int i = 0; i < 2; i++)
        if (fz_scratch_ctx[i] != NULL)
            CHECK_OK(aclrtDestroyContext(fz_scratch_ctx[i]));
    CHECK_OK(aclrtSetCurrentContext(g_ctx));
    for (int i = 0; i < FZ_SCRATCH; i++)
        if (fz_scratch[i] != NULL)
            (void)aclrtDestroyStream(fz_scratch[i]); /* may have died with a scratch context */
    CHECK_OK(aclrtDestroyEvent(fz_scratch_event));
    for (int k = 0; k < 2; k++) {
        if (fz_dev[k] != NULL)
            CHECK_OK(aclrtFree(fz_dev[k]));
        if (fz_host[k] != NULL)
            CHECK_OK(aclrtFreeHost(fz_host[k]));
    }
    CHECK_OK(aclrtFreeHost(fz_pinned_a));
    CHECK_OK(aclrtFreeHost(fz_pinned_b));
    CHECK_OK(aclrtFreeHost(fz_pinned_c));
    CHECK_OK(aclrtDestroyStream(fz_work));
    CHECK_OK(aclrtDestroyStream(fz_quiet));
    (void)aclGetRecentErrMsg();
}

/* ------------------------------------------------------------------------
 * Finalize: handles from before are stale; a second finalize is an error.
 * ------------------------------------------------------------------------ */

TEST(after_finalize_old_handles_are_stale_and_finalize_again_fails)
{
    CHECK_OK(aclFinalize());
    aclrtStreamStatus st;
    aclrtEventRecordedStatus rs;
    EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(g_stream, &st));
    EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(g_plain, &rs));
    EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(g_ex));
    EXPECT_ERR(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(g_ctx2));
    EXPECT_ERR(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
    uint64_t ref = 99;
    EXPECT_ERR(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&ref));
    EXPECT_ERR(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
}

static void setup(void)
{
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtGetCurrentContext(&g_ctx) != ACL_SUCCESS ||
        aclrtCtxGetCurrentDefaultStream(&g_default) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS ||
        aclrtCreateEvent(&g_plain) != ACL_SUCCESS ||
        aclrtCreateEventExWithFlag(&g_ex, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE) != ACL_SUCCESS ||
        aclrtCreateEventWithFlag(&g_sync, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE) != ACL_SUCCESS ||
        aclrtCreateEventWithFlag(&g_nosync, ACL_EVENT_TIME_LINE) != ACL_SUCCESS ||
        aclrtCreateEventWithFlag(&g_devonly, ACL_EVENT_DEVICE_USE_ONLY) != ACL_SUCCESS ||
        aclrtCreateEventWithFlag(&g_external, ACL_EVENT_EXTERNAL) != ACL_SUCCESS ||
        aclrtRecordEvent(g_plain, g_stream) != ACL_SUCCESS || aclrtRecordEvent(g_ex, g_stream) != ACL_SUCCESS ||
        aclrtRecordEvent(g_sync, g_stream) != ACL_SUCCESS || aclrtRecordEvent(g_nosync, g_stream) != ACL_SUCCESS ||
        aclrtSynchronizeStream(g_stream) != ACL_SUCCESS ||
        aclrtCreateStream(&g_stale_stream) != ACL_SUCCESS || aclrtDestroyStream(g_stale_stream) != ACL_SUCCESS ||
        aclrtCreateEvent(&g_stale_event) != ACL_SUCCESS || aclrtDestroyEvent(g_stale_event) != ACL_SUCCESS ||
        aclrtCreateContext(&g_stale_ctx, 0) != ACL_SUCCESS || aclrtDestroyContext(g_stale_ctx) != ACL_SUCCESS ||
        aclrtCreateContext(&g_ctx2, 0) != ACL_SUCCESS || aclrtCreateStream(&g_other) != ACL_SUCCESS ||
        aclrtSetCurrentContext(g_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "setup failed: %s\n", aclGetRecentErrMsg());
        exit(1);
    }
    build_bad_handles();
    (void)aclGetRecentErrMsg();
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1); /* device 1 exists and is never set: resets of it fail */
    RUN(acl_init_rejects_bad_configuration_files);
    setup();
    RUN(error_reporting_functions_reject_bad_levels);
    RUN(device_functions_reject_bad_ids_and_null_outputs);
    RUN(context_functions_reject_null_garbage_stale_and_wrong_kind_handles);
    RUN(calls_from_a_thread_without_a_context_fail_with_context_null);
    RUN(stream_functions_reject_null_garbage_stale_and_wrong_kind_handles);
    RUN(stream_functions_reject_wild_values);
    RUN(submissions_to_a_stream_of_another_context_fail_with_stream_context);
    RUN(event_functions_reject_null_garbage_stale_and_wrong_kind_handles);
    RUN(event_creation_rejects_wild_flags);
    RUN(event_operations_reject_the_wrong_kind_of_event_and_wild_values);
    RUN(external_events_cannot_be_waited_for_or_reset_outside_a_capture);
    RUN(task_and_memory_functions_reject_bad_arguments);
    RUN(fuzz_random_calls_return_documented_codes_and_lose_no_work);
    RUN(after_finalize_old_handles_are_stale_and_finalize_again_fails);
    return check_report("bad_input");
}
