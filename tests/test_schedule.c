/*
 * tests/test_schedule.c - pins the deterministic schedule (aclrt.schedule
 * "deterministic:SEED", backends/host/host_det.h; docs/CONFIGURATION.md):
 * the device's work runs on the program's thread when it waits or queries,
 * in an order drawn from the seed. The same seed gives the same order (in
 * one process across aclInit / aclFinalize, and in another process),
 * other seeds give others; a planted ordering bug shows for some seeds and
 * not others, the same way each time; a program that orders its streams
 * with events is right under every seed; the waits of the runtime
 * (synchronizes, a full ring, callbacks, destroy, aclFinalize, a host
 * function's own wait, a wait task's timeout) all work in the mode.
 *
 * Each case configures its own runtime (ACLRT_SCHEDULE, then aclInit; the
 * environment wins over the external variant's ACLRT_PROGRESS too).
 *
 * With an argument, one planted program runs once under the schedule the
 * environment names, for scripts/schedule_seeds.sh (make test-schedule):
 *   test_schedule flaky     two streams, a copy into a buffer and a copy out
 *                           of it, no event between: exits 1 when the copy
 *                           out read the stale buffer, 0 when it was right
 *   test_schedule correct   the same with aclrtStreamWaitEvent: exits 0
 *   test_schedule order     prints the order in which four streams' host
 *                           functions ran
 */
#define _GNU_SOURCE

#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEEDS 8

/* ------------------------------------------------------------------------
 * A runtime per configuration
 * ------------------------------------------------------------------------ */

static void det_begin(uint64_t seed, const char *ring_bytes)
{
    char v[64];
    snprintf(v, sizeof v, "deterministic:%llu", (unsigned long long)seed);
    setenv("ACLRT_SCHEDULE", v, 1);
    if (ring_bytes != NULL)
        setenv("ACLRT_RING_BYTES", ring_bytes, 1);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
}

static void det_end(void)
{
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    unsetenv("ACLRT_SCHEDULE");
    unsetenv("ACLRT_RING_BYTES");
}

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    return s;
}

/* ------------------------------------------------------------------------
 * Planted programs
 * ------------------------------------------------------------------------ */

/* The order program: four streams, six host functions each, launched round robin; the log says who ran when. */
#define ORDER_STREAMS 4
#define ORDER_TASKS 6
#define ORDER_LEN (ORDER_STREAMS * ORDER_TASKS)

struct mark {
    int stream, k;
};

static struct mark marks[ORDER_STREAMS][ORDER_TASKS];
static char order_log[ORDER_LEN + 1];
static int order_len;
static int order_next[ORDER_STREAMS];
static int order_broken; /* a stream's tasks ran out of its order */

static void mark_fn(void *arg)
{
    const struct mark *m = (const struct mark *)arg;
    if (order_next[m->stream] != m->k)
        order_broken = 1;
    order_next[m->stream]++;
    if (order_len < ORDER_LEN)
        order_log[order_len++] = (char)('A' + m->stream);
    order_log[order_len] = '\0';
}

static void run_order(void)
{
    order_len = 0;
    order_log[0] = '\0';
    order_broken = 0;
    memset(order_next, 0, sizeof order_next);
    aclrtStream s[ORDER_STREAMS];
    for (int i = 0; i < ORDER_STREAMS; i++)
        s[i] = new_stream();
    for (int k = 0; k < ORDER_TASKS; k++)
        for (int i = 0; i < ORDER_STREAMS; i++) {
            marks[i][k] = (struct mark){i, k};
            CHECK_OK(aclrtLaunchHostFunc(s[i], mark_fn, &marks[i][k]));
        }
    CHECK_OK(aclrtSynchronizeDevice());
    for (int i = 0; i < ORDER_STREAMS; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
    CHECK_EQ(ORDER_LEN, order_len);
    CHECK_EQ(0, order_broken);
}

/* The order of seed `seed` in a runtime of its own, into out. */
static void order_of(uint64_t seed, char *out)
{
    det_begin(seed, NULL);
    run_order();
    det_end();
    memcpy(out, order_log, ORDER_LEN + 1);
}

/*
 * The copy program: stream 1 copies `fresh` into buf, stream 2 copies buf
 * into out. Without the event, nothing orders the two copies: out holds the
 * fresh bytes or buf's stale ones. Returns 1 when out is right.
 */
#define COPY_BYTES 4096

static int run_copies(int with_event)
{
    void *fresh = NULL, *buf = NULL, *out = NULL;
    CHECK_OK(aclrtMalloc(&fresh, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&buf, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&out, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    dev_fill_pattern(fresh, COPY_BYTES, 2);
    dev_fill_pattern(buf, COPY_BYTES, 1);
    aclrtStream s1 = new_stream(), s2 = new_stream();
    aclrtEvent e = NULL;
    CHECK_OK(aclrtCreateEvent(&e));
    CHECK_OK(aclrtMemcpyAsync(buf, COPY_BYTES, fresh, COPY_BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    if (with_event) {
        CHECK_OK(aclrtRecordEvent(e, s1));
        CHECK_OK(aclrtStreamWaitEvent(s2, e));
    }
    /* Without the event: the race this program plants, on purpose (the stream-ordering sanitizer reports it). */
    if (!with_event)
        aclrtxSanitizerIgnoreBegin();
    CHECK_OK(aclrtMemcpyAsync(out, COPY_BYTES, buf, COPY_BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
    if (!with_event)
        aclrtxSanitizerIgnoreEnd();
    CHECK_OK(aclrtSynchronizeStream(s2));
    CHECK_OK(aclrtSynchronizeStream(s1));
    int right = dev_has_pattern(out, COPY_BYTES, 2);
    if (!right)
        CHECK(dev_has_pattern(out, COPY_BYTES, 1)); /* wrong means stale, never torn */
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtDestroyStream(s2));
    CHECK_OK(aclrtFree(fresh));
    CHECK_OK(aclrtFree(buf));
    CHECK_OK(aclrtFree(out));
    return right;
}

static int copies_of(uint64_t seed, int with_event)
{
    det_begin(seed, NULL);
    int right = run_copies(with_event);
    det_end();
    return right;
}

/* ------------------------------------------------------------------------
 * Reproducible orders
 * ------------------------------------------------------------------------ */

TEST(the_same_seed_gives_the_same_order_and_other_seeds_give_others)
{
    char orders[SEEDS][ORDER_LEN + 1];
    int distinct = 0;
    for (int seed = 1; seed <= SEEDS; seed++) {
        char again[ORDER_LEN + 1];
        order_of((uint64_t)seed, orders[seed - 1]);
        order_of((uint64_t)seed, again);
        if (strcmp(orders[seed - 1], again) != 0) {
            fprintf(stderr, "  seed %d ran %s, then %s\n", seed, orders[seed - 1], again);
            CHECK(strcmp(orders[seed - 1], again) == 0);
        }
        int seen = 0;
        for (int j = 0; j < seed - 1; j++)
            seen |= strcmp(orders[j], orders[seed - 1]) == 0;
        distinct += !seen;
    }
    CHECK(distinct >= 2);
}

/* The aclInit file's "aclrt": {"schedule": ...} is the same schedule as the environment's. */
TEST(the_schedule_from_the_aclinit_file_is_the_environments)
{
    char from_env[ORDER_LEN + 1];
    order_of(5, from_env);
    char path[] = "/tmp/aclrt_test_schedule_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *json = "{\"aclrt\": {\"schedule\": \"deterministic:5\"}}";
    CHECK_EQ((long)strlen(json), (long)write(fd, json, strlen(json)));
    close(fd);
    aclError rc = aclInit(path);
    unlink(path);
    CHECK_OK(rc);
    CHECK_OK(aclrtSetDevice(0));
    run_order();
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    CHECK(strcmp(from_env, order_log) == 0);
}

/* Another process with the same seed runs the same order (test_schedule order). */
TEST(another_process_with_the_same_seed_runs_the_same_order)
{
    char here[ORDER_LEN + 1];
    order_of(3, here);
    char self[4096], command[4200];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    self[len] = '\0';
    snprintf(command, sizeof command, "ACLRT_SCHEDULE=deterministic:3 '%s' order", self);
    FILE *p = popen(command, "r");
    CHECK(p != NULL);
    char there[64] = "";
    char *got = fgets(there, sizeof there, p);
    int status = pclose(p);
    CHECK(got != NULL);
    there[strcspn(there, "\n")] = '\0';
    CHECK_EQ(0, status);
    if (strcmp(here, there) != 0)
        fprintf(stderr, "  here %s, there %s\n", here, there);
    CHECK(strcmp(here, there) == 0);
}

TEST(a_planted_ordering_bug_shows_for_some_seeds_the_same_way_each_time)
{
    int right = 0, wrong = 0;
    for (int seed = 1; seed <= 2 * SEEDS; seed++) {
        int first = copies_of((uint64_t)seed, 0);
        CHECK_EQ(first, copies_of((uint64_t)seed, 0));
        right += first;
        wrong += !first;
    }
    CHECK(right > 0);
    CHECK(wrong > 0);
}

TEST(a_program_ordered_by_events_is_right_under_every_seed)
{
    for (int seed = 1; seed <= 2 * SEEDS; seed++)
        CHECK_EQ(1, copies_of((uint64_t)seed, 1));
}

/* ------------------------------------------------------------------------
 * Where the work runs
 * ------------------------------------------------------------------------ */

struct seen {
    int ran;
    pthread_t thread;
};

static void seen_fn(void *arg)
{
    struct seen *s = (struct seen *)arg;
    s->ran++;
    s->thread = pthread_self();
}

/* Nothing runs until the program waits or asks; a query that finds work not done runs a step. */
TEST(work_runs_on_the_program_thread_when_it_queries_or_synchronizes)
{
    det_begin(7, NULL);
    aclrtStream s = new_stream();
    aclrtEvent e = NULL;
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    struct seen seen[8];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 8; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, seen_fn, &seen[i]));
    CHECK_OK(aclrtRecordEvent(e, s));
    for (int i = 0; i < 1000; i++) /* a chance for a thread of the runtime to run them: there is none */
        sched_yield();
    CHECK_EQ(0, seen[0].ran);
    int queries = 0;
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    while (st != ACL_EVENT_RECORDED_STATUS_COMPLETE && queries < 100) {
        CHECK_OK(aclrtQueryEventStatus(e, &st));
        queries++;
    }
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK(queries >= 2 && queries <= 8); /* 1 to 4 tasks a step, one step a query */
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(1, seen[i].ran);
        CHECK(pthread_equal(seen[i].thread, pthread_self()));
    }
    /* The same with aclrtStreamQuery. */
    for (int i = 0; i < 8; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, seen_fn, &seen[i]));
    aclrtStreamStatus ss = ACL_STREAM_STATUS_NOT_READY;
    for (queries = 0; ss != ACL_STREAM_STATUS_COMPLETE && queries < 100; queries++)
        CHECK_OK(aclrtStreamQuery(s, &ss));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, ss);
    CHECK_EQ(2, seen[7].ran);
    /* And with a synchronize of an event. */
    for (int i = 0; i < 8; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, seen_fn, &seen[i]));
    CHECK_OK(aclrtRecordEvent(e, s));
    CHECK_EQ(2, seen[0].ran);
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(3, seen[7].ran);
    /* No progress calls: the program's waits run the device. */
    aclrtxProgressInfo info;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtxDeviceProgress(0, 16, &info));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "deterministic");
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s));
    det_end();
}

/* ------------------------------------------------------------------------
 * The waits of the runtime
 * ------------------------------------------------------------------------ */

static int counter;
static void count_fn(void *arg)
{
    (void)arg;
    counter++;
}

struct seq_mark {
    int *next;
    int k;
    int *broken;
};

static void seq_fn(void *arg)
{
    struct seq_mark *m = (struct seq_mark *)arg;
    if (*m->next != m->k)
        *m->broken = 1;
    (*m->next)++;
}

/* A launch into a full ring (16 tasks) runs the device's work until there is room. */
TEST(a_launch_into_a_full_ring_runs_the_work_until_there_is_room)
{
    det_begin(11, "1024");
    enum { N = 200 };
    static struct seq_mark m[2][N];
    int next[2] = {0, 0}, broken = 0;
    aclrtStream s[2] = {new_stream(), new_stream()};
    for (int k = 0; k < N; k++)
        for (int i = 0; i < 2; i++) {
            m[i][k] = (struct seq_mark){&next[i], k, &broken};
            CHECK_OK(aclrtLaunchHostFunc(s[i], seq_fn, &m[i][k]));
        }
    CHECK(next[0] + next[1] >= 2 * N - 2 * 16); /* the launches ran what did not fit */
    CHECK_OK(aclrtSynchronizeStream(s[0]));
    CHECK_OK(aclrtSynchronizeStream(s[1]));
    CHECK_EQ(N, next[0]);
    CHECK_EQ(N, next[1]);
    CHECK_EQ(0, broken);
    CHECK_OK(aclrtDestroyStream(s[0]));
    CHECK_OK(aclrtDestroyStream(s[1]));
    det_end();
}

/* A report thread, as a program has one. */
static aclrtContext report_ctx;
static atomic_int report_stop;
static pthread_t report_thread;
static atomic_int callbacks_ran;
static atomic_int callbacks_elsewhere; /* callbacks that ran on another thread than the report thread */

static void *report_main(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(report_ctx);
    while (!atomic_load(&report_stop)) {
        aclError rc = aclrtProcessReport(20);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT && rc != ACL_ERROR_RT_THREAD_SUBSCRIBE)
            break;
    }
    return NULL;
}

static void callback_fn(void *arg)
{
    (void)arg;
    if (!pthread_equal(pthread_self(), report_thread))
        atomic_fetch_add(&callbacks_elsewhere, 1);
    atomic_fetch_add(&callbacks_ran, 1);
}

struct after {
    int callbacks_seen;
};

static void after_fn(void *arg)
{
    ((struct after *)arg)->callbacks_seen = atomic_load(&callbacks_ran);
}

TEST(callbacks_run_on_the_report_thread_in_stream_order)
{
    det_begin(13, NULL);
    CHECK_OK(aclrtGetCurrentContext(&report_ctx));
    atomic_store(&report_stop, 0);
    atomic_store(&callbacks_ran, 0);
    atomic_store(&callbacks_elsewhere, 0);
    CHECK_EQ(0, pthread_create(&report_thread, NULL, report_main, NULL));
    aclrtStream s[2] = {new_stream(), new_stream()};
    struct after after[2][5];
    for (int i = 0; i < 2; i++)
        CHECK_OK(aclrtSubscribeReport((uint64_t)report_thread, s[i]));
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < 2; i++) {
            CHECK_OK(aclrtLaunchCallback(callback_fn, NULL, k % 2 ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK, s[i]));
            CHECK_OK(aclrtLaunchHostFunc(s[i], after_fn, &after[i][k]));
        }
    CHECK_OK(aclrtSynchronizeStream(s[0]));
    CHECK_OK(aclrtSynchronizeStream(s[1]));
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 5; k += 2)
            CHECK(after[i][k].callbacks_seen >= k + 1); /* a blocking callback is over before what follows it */
    for (int i = 0; i < 2; i++)
        CHECK_OK(aclrtUnSubscribeReport((uint64_t)report_thread, s[i]));
    atomic_store(&report_stop, 1);
    pthread_join(report_thread, NULL);
    CHECK_EQ(10, atomic_load(&callbacks_ran));
    CHECK_EQ(0, atomic_load(&callbacks_elsewhere));
    CHECK_OK(aclrtDestroyStream(s[0]));
    CHECK_OK(aclrtDestroyStream(s[1]));
    det_end();
}

/* A destroy waits for its stream's work, and aclFinalize for everything left: both run it. */
TEST(destroy_and_finalize_run_the_work_left)
{
    det_begin(17, NULL);
    counter = 0;
    aclrtStream s[3] = {new_stream(), new_stream(), new_stream()};
    for (int k = 0; k < 20; k++)
        for (int i = 0; i < 3; i++)
            CHECK_OK(aclrtLaunchHostFunc(s[i], count_fn, NULL));
    CHECK_EQ(0, counter);
    CHECK_OK(aclrtDestroyStream(s[0]));
    CHECK(counter >= 20);
    CHECK_OK(aclrtDestroyStreamForce(s[1]));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK(counter >= 40);
    for (int k = 0; k < 20; k++)
        CHECK_OK(aclrtLaunchHostFunc(s[2], count_fn, NULL));
    CHECK_OK(aclFinalize()); /* the device and the stream are still there */
    unsetenv("ACLRT_SCHEDULE");
    CHECK_EQ(80, counter);
}

/* A host function's own synchronize runs the other streams' work on the same thread. */
struct nested {
    aclrtStream other;
    aclError rc;
    int other_done;
    char msg[512];
};

static void nested_sync_fn(void *arg)
{
    struct nested *n = (struct nested *)arg;
    n->rc = aclrtSynchronizeStream(n->other);
    n->other_done = counter;
    const char *m = aclGetRecentErrMsg();
    snprintf(n->msg, sizeof n->msg, "%s", m != NULL ? m : "");
}

TEST(a_host_function_that_synchronizes_another_stream_runs_its_work)
{
    det_begin(19, NULL);
    counter = 0;
    aclrtStream a = new_stream(), b = new_stream();
    struct nested n = {b, -1, -1, ""};
    for (int k = 0; k < 10; k++)
        CHECK_OK(aclrtLaunchHostFunc(b, count_fn, NULL));
    CHECK_OK(aclrtLaunchHostFunc(a, nested_sync_fn, &n));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(n.rc);
    CHECK_EQ(10, n.other_done);
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    det_end();
}

/*
 * A host function that waits for work the program lets go only later: its
 * wait holds the only thread that runs steps. It gives up, with a message,
 * instead of hanging; the program then goes on.
 */
TEST(a_host_function_waiting_for_what_the_program_does_later_gets_an_error_not_a_hang)
{
    det_begin(23, NULL);
    counter = 0;
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream(), d = new_stream();
    aclrtNotify notify = NULL;
    CHECK_OK(aclrtCreateNotify(&notify, 0));
    CHECK_OK(aclrtWaitAndResetNotify(notify, b, 0)); /* b waits for the record below */
    struct nested n = {b, -1, -1, ""};
    CHECK_OK(aclrtLaunchHostFunc(a, nested_sync_fn, &n));
    for (int k = 0; k < 100; k++) /* long enough that a gets its turn before c is done */
        CHECK_OK(aclrtLaunchHostFunc(c, count_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(c));
    CHECK(n.rc != ACL_SUCCESS && n.rc != -1);
    CHECK_STR_CONTAINS(n.msg, "deterministic");
    CHECK_OK(aclrtRecordNotify(notify, d));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtDestroyNotify(notify));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
    CHECK_OK(aclrtDestroyStream(d));
    det_end();
}

/* Timers fire: a wait task's timeout, and a synchronize's own timeout, while nothing else can run. */
TEST(timeouts_fire_while_nothing_else_can_run)
{
    det_begin(29, NULL);
    aclrtStream a = new_stream(), b = new_stream(), d = new_stream();
    aclrtNotify notify = NULL;
    CHECK_OK(aclrtCreateNotify(&notify, 0));
    CHECK_OK(aclrtWaitAndResetNotify(notify, a, 0));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(a, 30));
    aclrtEvent e = NULL;
    CHECK_OK(aclrtCreateEvent(&e));
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEventWithTimeout(b, e, 1)); /* one second */
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(b));
    CHECK_OK(aclrtRecordNotify(notify, d));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyNotify(notify));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(d));
    det_end();
}

/* ------------------------------------------------------------------------
 * One planted program, for scripts/schedule_seeds.sh
 * ------------------------------------------------------------------------ */

static int program_status = 2;
static const char *program_name;

TEST(one_program)
{
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    if (strcmp(program_name, "order") == 0) {
        run_order();
        printf("%s\n", order_log);
        program_status = 0;
    } else {
        int right = run_copies(strcmp(program_name, "correct") == 0);
        printf("%s\n", right ? "right: the copy out read the fresh bytes" : "wrong: the copy out read stale bytes");
        program_status = right ? 0 : 1;
    }
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

/* After each case: whatever a failing case left (a report thread, a runtime) is gone. */
static void case_cleanup(void)
{
    if (report_thread != 0 && !atomic_load(&report_stop)) {
        atomic_store(&report_stop, 1);
        pthread_join(report_thread, NULL);
    }
    while (aclFinalize() == ACL_SUCCESS)
        ;
    unsetenv("ACLRT_SCHEDULE");
    unsetenv("ACLRT_RING_BYTES");
    (void)aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(int argc, char **argv)
{
    if (argc > 1) {
        program_name = argv[1];
        if (strcmp(program_name, "flaky") != 0 && strcmp(program_name, "correct") != 0 &&
            strcmp(program_name, "order") != 0) {
            fprintf(stderr, "usage: %s [flaky|correct|order]\n", argv[0]);
            return 2;
        }
        RUN(one_program);
        return check_failures != 0 ? 2 : program_status;
    }
    RUN_CASE(the_same_seed_gives_the_same_order_and_other_seeds_give_others);
    RUN_CASE(the_schedule_from_the_aclinit_file_is_the_environments);
    RUN_CASE(another_process_with_the_same_seed_runs_the_same_order);
    RUN_CASE(a_planted_ordering_bug_shows_for_some_seeds_the_same_way_each_time);
    RUN_CASE(a_program_ordered_by_events_is_right_under_every_seed);
    RUN_CASE(work_runs_on_the_program_thread_when_it_queries_or_synchronizes);
    RUN_CASE(a_launch_into_a_full_ring_runs_the_work_until_there_is_room);
    RUN_CASE(callbacks_run_on_the_report_thread_in_stream_order);
    RUN_CASE(destroy_and_finalize_run_the_work_left);
    RUN_CASE(a_host_function_that_synchronizes_another_stream_runs_its_work);
    RUN_CASE(a_host_function_waiting_for_what_the_program_does_later_gets_an_error_not_a_hang);
    RUN_CASE(timeouts_fire_while_nothing_else_can_run);
    return check_report("schedule");
}
