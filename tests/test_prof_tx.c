/*
 * tests/test_prof_tx.c - pins "Profiling: settings, msproftx markers,
 * steps, traces" (docs/SEMANTICS.md): aclprofSetConfig's checks and the
 * settings in the trace; stamps, marks, nested push/pop per thread, ranges
 * ended on another thread, tensor ranges and aclprofStr2Id; aclprofMarkEx,
 * step timestamps and aclrtProfTrace in their stream's order (also as a
 * replayed model's task); bad input and the order errors. The trace is
 * read back with jsmn (strict), as a program reading JSON would.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "acl/acl_prof.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

static char base_dir[256];
static int dir_serial;

static const char *fresh_dir(char *buf, size_t n)
{
    snprintf(buf, n, "%s/d%d", base_dir, dir_serial++);
    return buf;
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
    char name[160]; /* as written: JSON escapes kept */
    char cat[16];
    char ph;
    long pid, tid;
    double ts, dur;
    char args[200]; /* the args object's text */
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

static bool load_trace(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL)
        return false;
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
        int n = toks[i + 1].size;
        i += 2;
        for (int e = 0; e < n; e++) {
            if (nevs >= MAX_EVS)
                return false;
            struct ev *v = &evs[nevs++];
            memset(v, 0, sizeof *v);
            int members = toks[i].size;
            i++;
            for (int m = 0; m < members; m++) {
                const jsmntok_t *key = &toks[i], *val = &toks[i + 1];
                const char *vs = json + val->start;
                int vl = val->end - val->start;
                if (tok_is(key, "name"))
                    snprintf(v->name, sizeof v->name, "%.*s", vl, vs);
                else if (tok_is(key, "cat"))
                    snprintf(v->cat, sizeof v->cat, "%.*s", vl, vs);
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
                else if (tok_is(key, "args"))
                    snprintf(v->args, sizeof v->args, "%.*s", vl, vs);
                i = skip(i + 1);
            }
        }
    }
    return found;
}

/* The events of category cat (and phase ph), in the trace's order. */
static int events_of(const char *cat, char ph, const struct ev **out, int max)
{
    int n = 0;
    for (int i = 0; i < nevs; i++)
        if (strcmp(evs[i].cat, cat) == 0 && evs[i].ph == ph && n < max)
            out[n++] = &evs[i];
    return n;
}

static const struct ev *event_named(const char *name)
{
    for (int i = 0; i < nevs; i++)
        if (evs[i].ph != 'M' && strcmp(evs[i].name, name) == 0)
            return &evs[i];
    return NULL;
}

/* The pid the trace names "host" (-1: none). */
static long host_pid(void)
{
    for (int i = 0; i < nevs; i++)
        if (evs[i].ph == 'M' && strcmp(evs[i].name, "process_name") == 0 && strstr(evs[i].args, "\"host\"") != NULL)
            return evs[i].pid;
    return -1;
}

/* Start a session (msproftx on when tx) in a fresh directory (dir: n bytes). */
static aclprofConfig *start_session(char *dir, size_t n, bool tx)
{
    fresh_dir(dir, n);
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    uint32_t dev = 0;
    aclprofConfig *cfg =
        aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME | (tx ? ACL_PROF_MSPROFTX : 0));
    CHECK(cfg != NULL);
    CHECK_OK(aclprofStart(cfg));
    return cfg;
}

/* Stop the session, load its trace. */
static void stop_session(aclprofConfig *cfg, const char *dir)
{
    char path[600];
    CHECK_OK(aclprofStop(cfg));
    CHECK_OK(aclprofFinalize());
    CHECK_OK(aclprofDestroyConfig(cfg));
    CHECK_EQ(1, trace_files(dir, path, sizeof path));
    CHECK(load_trace(path));
}

static void *stamp_with(const char *msg)
{
    void *st = aclprofCreateStamp();
    CHECK(st != NULL);
    CHECK_OK(aclprofSetStampTraceMessage(st, msg, (uint32_t)strlen(msg)));
    return st;
}

/* ------------------------------------------------------------------------
 * Settings
 * ------------------------------------------------------------------------ */

TEST(set_config_checks_each_value_and_the_trace_lists_them)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, NULL, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not the length");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_ARGS_MIN, "1", 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig((aclprofConfigType)2, "1", 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_ARGS_MAX, "1", 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not an aclprofConfigType");
    /* Numbers in their ranges, words from their lists. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "101", 3));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a value");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "0", 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "1x", 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_SYS_INTERCONNECTION_FREQ, "51", 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "199", 3));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "4294967296", 10));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_LLC_MODE, "read,write", 10));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_HOST_SYS, "cpu,cpu", 7));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_HOST_SYS, "cpu,", 4));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_NTS_METRICS, "Other", 5));
    static char longer[300];
    memset(longer, '1', sizeof longer - 1);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetConfig(ACL_PROF_OPTYPE, longer, 257));
    CHECK_OK(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5));
    CHECK_OK(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "4294967295", 10));
    CHECK_OK(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2));
    CHECK_OK(aclprofSetConfig(ACL_PROF_LLC_MODE, "write", 5));
    CHECK_OK(aclprofSetConfig(ACL_PROF_HOST_SYS_USAGE, "mem,cpu", 7));
    CHECK_OK(aclprofSetConfig(ACL_PROF_OPTYPE, "say \"x\"", 7));
    /* ACL_PROF_PATH stands for aclprofInit: a session starts without it. */
    char dir[300], path[600];
    fresh_dir(dir, sizeof dir);
    CHECK_OK(aclprofSetConfig(ACL_PROF_PATH, dir, strlen(dir)));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclprofInit(dir, strlen(dir)));
    uint32_t dev = 0;
    aclprofConfig *cfg = aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME);
    CHECK(cfg != NULL);
    CHECK_OK(aclprofStart(cfg));
    CHECK_EQ(ACL_ERROR_PROF_ALREADY_RUN, aclprofSetConfig(ACL_PROF_PATH, dir, strlen(dir)));
    CHECK_OK(aclprofStop(cfg));
    CHECK_EQ(1, trace_files(dir, path, sizeof path));
    CHECK(load_trace(path));
    CHECK(strstr(json, "\"settings\":{\"1\":\"4294967295\",\"3\":\"15\",\"4\":\"write\",\"9\":\"mem,cpu\","
                       "\"14\":\"say \\\"x\\\"\",\"16\":") != NULL);
    /* aclprofFinalize forgets them. */
    CHECK_OK(aclprofFinalize());
    CHECK_OK(aclprofInit(dir, strlen(dir)));
    CHECK_OK(aclprofStart(cfg));
    CHECK_OK(aclprofStop(cfg));
    CHECK_OK(aclprofFinalize());
    CHECK_EQ(2, trace_files(dir, path, sizeof path));
    CHECK_OK(aclprofDestroyConfig(cfg));
}

/* ------------------------------------------------------------------------
 * msproftx
 * ------------------------------------------------------------------------ */

TEST(markers_need_a_session_with_msproftx_and_refuse_bad_stamps)
{
    CHECK(aclprofCreateStamp() == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclprofStart first");
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofPop());
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofRangeStop(1));
    char dir[300];
    aclprofConfig *cfg = start_session(dir, sizeof dir, false);
    CHECK(aclprofCreateStamp() == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "ACL_PROF_MSPROFTX");
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofPop());
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "ACL_PROF_MSPROFTX");
    stop_session(cfg, dir);

    cfg = start_session(dir, sizeof dir, true);
    void *st = aclprofCreateStamp();
    CHECK(st != NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMark(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofPush(NULL));
    uint32_t id = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStart(st, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStart(NULL, &id));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetStampTraceMessage(st, NULL, 1));
    static char msg[200];
    memset(msg, 'm', sizeof msg - 1);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofSetStampTraceMessage(st, msg, 128));
    CHECK_OK(aclprofSetStampTraceMessage(st, msg, 127));
    int local = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMark(&local));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a stamp");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofPop());
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no aclprofPush");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStop(12345));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "was not started");
    aclprofDestroyStamp(st);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMark(st)); /* destroyed */
    aclprofDestroyStamp(st);                              /* twice: said, no crash */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a stamp");
    aclprofDestroyStamp(NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "stamp is NULL");
    stop_session(cfg, dir);
    long host = host_pid();
    (void)host;
    const struct ev *marks[4];
    CHECK_EQ(0, events_of("mark", 'i', marks, 4)); /* none of the refused ones */
}

struct range_stop_arg {
    uint32_t id;
    aclError rc;
    aclError pop_rc;
};

static void *range_stopper(void *p)
{
    struct range_stop_arg *a = (struct range_stop_arg *)p;
    a->pop_rc = aclprofPop(); /* this thread pushed nothing */
    a->rc = aclprofRangeStop(a->id);
    return NULL;
}

TEST(marks_nested_pushes_and_ranges_are_in_the_trace)
{
    char dir[300];
    aclprofConfig *cfg = start_session(dir, sizeof dir, true);
    void *point = stamp_with("load \"model\"\\");
    void *outer = stamp_with("forward");
    void *inner = stamp_with("dispatch");
    void *rng = stamp_with("preprocess");
    CHECK_OK(aclprofMark(point));
    CHECK_OK(aclprofPush(outer));
    uint32_t id = 0;
    CHECK_OK(aclprofRangeStart(rng, &id));
    CHECK(id != 0);
    CHECK_OK(aclprofPush(inner));
    /* The message is copied at the push: a later change does not touch it. */
    CHECK_OK(aclprofSetStampTraceMessage(inner, "changed", 7));
    CHECK_OK(aclprofPop());
    /* Another thread ends the range; it cannot pop this thread's push. */
    struct range_stop_arg a = {id, -1, -1};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, range_stopper, &a) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(a.rc);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, a.pop_rc);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStop(id)); /* once */
    CHECK_OK(aclprofPop());
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofPop());
    /* A push left open at the stop is not in the trace. */
    CHECK_OK(aclprofPush(outer));
    stop_session(cfg, dir);
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofPop());

    long host = host_pid();
    CHECK(host >= 0);
    const struct ev *mark = event_named("load \\\"model\\\"\\\\");
    CHECK(mark != NULL);
    if (mark == NULL)
        return;
    CHECK_EQ('i', mark->ph);
    CHECK_STR_CONTAINS(mark->cat, "mark");
    CHECK_EQ(host, mark->pid);
    const struct ev *pushes[4], *ranges[4];
    CHECK_EQ(2, events_of("push", 'X', pushes, 4));
    CHECK_EQ(1, events_of("range", 'X', ranges, 4));
    /* In the order they ended: the inner one first. */
    CHECK_STR_CONTAINS(pushes[0]->name, "dispatch");
    CHECK_STR_CONTAINS(pushes[1]->name, "forward");
    CHECK_EQ(pushes[0]->tid, pushes[1]->tid);
    CHECK_EQ(mark->tid, pushes[0]->tid);
    CHECK(pushes[1]->ts <= pushes[0]->ts);
    CHECK(pushes[0]->ts + pushes[0]->dur <= pushes[1]->ts + pushes[1]->dur);
    CHECK(mark->ts <= pushes[1]->ts);
    CHECK_STR_CONTAINS(ranges[0]->name, "preprocess");
    char want[32];
    snprintf(want, sizeof want, "\"rangeId\":%u", id);
    CHECK_STR_CONTAINS(ranges[0]->args, want);
    CHECK(ranges[0]->tid != pushes[0]->tid); /* ended on the other thread */
    CHECK(pushes[1]->ts <= ranges[0]->ts);
    /* What was open at the stop went with that session: the next finds nothing to end. */
    uint32_t open_id = 0;
    cfg = start_session(dir, sizeof dir, true);
    CHECK_OK(aclprofRangeStart(rng, &open_id));
    CHECK_OK(aclprofStop(cfg));
    CHECK_OK(aclprofStart(cfg));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofPop());
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangeStop(open_id));
    CHECK_OK(aclprofStop(cfg));
    CHECK_OK(aclprofFinalize());
    CHECK_OK(aclprofDestroyConfig(cfg));
    aclprofDestroyStamp(point);
    aclprofDestroyStamp(outer);
    aclprofDestroyStamp(inner);
    aclprofDestroyStamp(rng);
}

TEST(str2id_names_tensor_ranges)
{
    CHECK(aclprofStr2Id("MatMul_1") == aclprofStr2Id("MatMul_1"));
    CHECK(aclprofStr2Id("MatMul_1") != aclprofStr2Id("Add_1"));
    CHECK(aclprofStr2Id("") != 0);
    CHECK_EQ(0, (int)aclprofStr2Id(NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "message is NULL");
    aclprofTensor tensors[2];
    memset(tensors, 0, sizeof tensors);
    tensors[0].shapeDim = 2;
    tensors[1].type = 1;
    tensors[1].shapeDim = 8;
    aclprofTensorInfo info = {.opNameId = aclprofStr2Id("MatMul_1"), .opTypeId = aclprofStr2Id("MatMul"),
                              .tensorNum = 2, .tensors = tensors};
    aclprofEventAttributes attr = {.version = ACL_PROF_EVENT_ATTR_VERSION, .size = sizeof attr,
                                   .messageType = ACL_PROF_MESSAGE_TYPE_TENSOR_INFO};
    attr.message.tensorInfo = &info;
    CHECK_EQ(ACL_ERROR_PROF_NOT_RUN, aclprofRangePushEx(&attr));
    char dir[300];
    aclprofConfig *cfg = start_session(dir, sizeof dir, true);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangePushEx(NULL));
    aclprofEventAttributes bad = attr;
    bad.messageType = 5;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangePushEx(&bad));
    bad = attr;
    bad.size = 4;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangePushEx(&bad));
    bad = attr;
    bad.message.tensorInfo = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangePushEx(&bad));
    tensors[1].shapeDim = 9;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangePushEx(&attr));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "shapeDim");
    tensors[1].shapeDim = 8;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofRangePop());
    CHECK_OK(aclprofRangePushEx(&attr));
    info.opNameId = 12345; /* not a string aclprofStr2Id saw */
    CHECK_OK(aclprofRangePushEx(&attr));
    CHECK_OK(aclprofRangePop());
    CHECK_OK(aclprofRangePop());
    stop_session(cfg, dir);
    const struct ev *t[4];
    CHECK_EQ(2, events_of("tensor", 'X', t, 4));
    CHECK_STR_CONTAINS(t[0]->name, "tensor"); /* unnamed: its category */
    CHECK_STR_CONTAINS(t[0]->args, "\"opNameId\":12345");
    CHECK_STR_CONTAINS(t[1]->name, "MatMul_1");
    CHECK_STR_CONTAINS(t[1]->args, "\"tensorNum\":2");
}

/* ------------------------------------------------------------------------
 * Stream-ordered markers
 * ------------------------------------------------------------------------ */

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

struct trace_rec {
    uint64_t id, model;
    uint16_t tag;
} __attribute__((packed));

TEST(mark_ex_steps_and_trace_records_follow_their_stream)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t sid = -1;
    CHECK_OK(aclrtStreamGetId(s, &sid));
    struct trace_rec rec = {7, 9, 3};
    /* Outside a session: refused inputs, and a record the stream passes. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtProfTrace(NULL, 18, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtProfTrace(&rec, 0, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtProfTrace(&rec, 19, s));
    CHECK_OK(aclrtProfTrace(&rec, 18, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    aclprofStepInfo *unused = aclprofCreateStepInfo(); /* numbered: step 0 is this one, never stepped */
    CHECK(unused != NULL);
    aclprofDestroyStepInfo(unused);

    char dir[300];
    aclprofConfig *cfg = start_session(dir, sizeof dir, true);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx(NULL, 1, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx("abc", 2, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not the length");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx("", 0, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx("abc", 3, NULL));
    static char big[200];
    memset(big, 'b', 128);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofMarkEx(big, 128, s));

    aclprofStepInfo *step = aclprofCreateStepInfo();
    CHECK(step != NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(NULL, ACL_STEP_START, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(step, (aclprofStepTag)2, s));
    /* The stream is held at a gate: the markers run after it. */
    struct gate *g = launch_gate(s);
    CHECK_OK(aclprofGetStepTimestamp(step, ACL_STEP_START, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(step, ACL_STEP_START, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "started already");
    CHECK_OK(aclprofMarkEx("exec", 4, s));
    rec.id = 70;
    CHECK_OK(aclrtProfTrace(&rec, 18, s));
    uint16_t short_rec = 5; /* 2 bytes: the id's low bytes, the rest 0 */
    CHECK_OK(aclrtProfTrace(&short_rec, 2, s));
    CHECK_OK(aclprofGetStepTimestamp(step, ACL_STEP_END, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(step, ACL_STEP_END, s));
    gate_wait_entered(g);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    aclprofDestroyStepInfo(step);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclprofGetStepTimestamp(step, ACL_STEP_START, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a step info");
    aclprofDestroyStepInfo(NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "stepinfo is NULL");
    stop_session(cfg, dir);

    long host = host_pid();
    const struct ev *mx[4], *steps[4], *traces[4], *tasks[16];
    CHECK_EQ(2, events_of("markEx", 'i', mx, 4));
    CHECK_EQ(2, events_of("step", 'i', steps, 4));
    CHECK_EQ(2, events_of("trace", 'i', traces, 4));
    int ntasks = events_of("task", 'X', tasks, 16);
    CHECK(ntasks >= 1);
    if (ntasks < 1)
        return;
    const struct ev *gate_task = tasks[0];
    CHECK_EQ(sid, gate_task->tid);
    /* The host's markEx when called, the stream's when the stream reached it: after the gate. */
    const struct ev *mx_host = mx[0]->pid == host ? mx[0] : mx[1];
    const struct ev *mx_dev = mx[0]->pid == host ? mx[1] : mx[0];
    CHECK_EQ(host, mx_host->pid);
    CHECK_EQ(0, mx_dev->pid);
    CHECK_EQ(sid, mx_dev->tid);
    CHECK_STR_CONTAINS(mx_dev->name, "exec");
    CHECK(strcmp(mx_host->args, mx_dev->args) == 0); /* the same markId */
    CHECK(mx_dev->ts >= gate_task->ts + gate_task->dur);
    CHECK(mx_host->ts < gate_task->ts + gate_task->dur);
    CHECK_STR_CONTAINS(steps[0]->name, "step 1 start");
    CHECK_STR_CONTAINS(steps[1]->name, "step 1 end");
    CHECK_EQ(sid, steps[0]->tid);
    CHECK(steps[0]->ts >= gate_task->ts + gate_task->dur);
    CHECK(steps[0]->ts <= mx_dev->ts && mx_dev->ts <= traces[0]->ts && traces[1]->ts <= steps[1]->ts);
    CHECK_STR_CONTAINS(traces[0]->args, "\"id\":70,\"modelId\":9,\"tagId\":3");
    CHECK_STR_CONTAINS(traces[1]->args, "\"id\":5,\"modelId\":0,\"tagId\":0");
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_captured_trace_record_is_recorded_at_each_replay)
{
    static atomic_int ran;
    atomic_store(&ran, 0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct trace_rec rec = {41, 1, 2};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtProfTrace(&rec, sizeof rec, s));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    rec.id = 0; /* copied at the call */
    char dir[300];
    aclprofConfig *cfg = start_session(dir, sizeof dir, false);
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    stop_session(cfg, dir);
    CHECK_EQ(2, atomic_load(&ran));
    const struct ev *traces[4];
    CHECK_EQ(2, events_of("trace", 'i', traces, 4));
    CHECK_STR_CONTAINS(traces[1]->args, "\"id\":41,\"modelId\":1,\"tagId\":2");
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

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
    snprintf(base_dir, sizeof base_dir, "/tmp/aclrt_test_prof_tx_XXXXXX");
    if (mkdtemp(base_dir) == NULL || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(set_config_checks_each_value_and_the_trace_lists_them);
    RUN_CASE(markers_need_a_session_with_msproftx_and_refuse_bad_stamps);
    RUN_CASE(marks_nested_pushes_and_ranges_are_in_the_trace);
    RUN_CASE(str2id_names_tensor_ranges);
    RUN_CASE(mark_ex_steps_and_trace_records_follow_their_stream);
    RUN_CASE(a_captured_trace_record_is_recorded_at_each_replay);
    aclrtResetDevice(0);
    aclFinalize();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", base_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", base_dir);
    return check_report("prof_tx");
}
