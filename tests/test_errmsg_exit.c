/*
 * tests/test_errmsg_exit.c - pins "calls from thread-exit destructors"
 * (docs/SEMANTICS.md, Init and errors): a thread's pthread key destructors
 * may call the runtime after aclrt released the thread's error text (its
 * own key's destructor ran first). Failing calls there return their codes,
 * set the last error, and aclGetRecentErrMsg gives the lines recorded since
 * the release, in every destructor round but the C library's last, where it
 * gives NULL. Under AddressSanitizer nothing reads freed memory, and under
 * LeakSanitizer (detect_leaks=1) every buffer is freed.
 *
 * Key order decides which destructor runs first in a round: `early_key` is
 * created before anything failed in the process (so before aclrt's key),
 * `late_key` after a failure made aclrt create its key, so its destructor
 * runs after aclrt's in every round. The destructors only record what they
 * saw; the main thread checks it after pthread_join.
 */
#define _GNU_SOURCE

#include "check.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef PTHREAD_DESTRUCTOR_ITERATIONS
#define PTHREAD_DESTRUCTOR_ITERATIONS 4
#endif

/*
 * ThreadSanitizer ends its own record of a thread in the C library's last
 * destructor round, from a key created before main: code that runs after
 * that in the same round is outside what it supports (it reports false
 * races or crashes, with or without aclrt). Under it, the destructors here
 * stop one round short, and the last round is checked by the other builds.
 */
#if defined(__SANITIZE_THREAD__)
#define ROUNDS_RUN (PTHREAD_DESTRUCTOR_ITERATIONS - 1)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ROUNDS_RUN (PTHREAD_DESTRUCTOR_ITERATIONS - 1)
#endif
#endif
#ifndef ROUNDS_RUN
#define ROUNDS_RUN PTHREAD_DESTRUCTOR_ITERATIONS
#endif

#define GARBAGE_STREAM ((aclrtStream)(uintptr_t)0xdeadbeefu)
#define MAX_ROUNDS 8

static pthread_key_t early_key, late_key;

/* What one destructor call saw. */
struct round_seen {
    aclError set_device, destroy_stream, last_error;
    int text_before;      /* aclGetRecentErrMsg before the failing calls: 0 NULL, 1 has the body's line */
    int text_has_set;     /* ...after them: the aclrtSetDevice line is there */
    int text_has_destroy; /* ...and the aclrtDestroyStream line */
    int text_null;        /* ...or it was NULL */
    int second_read_null; /* a second aclGetRecentErrMsg right after: NULL (the text was cleared) */
};

struct exiting_thread {
    pthread_key_t key;
    int fail_in_body; /* the thread fails once (aclrtSynchronizeStream of garbage) before it exits */
    int rounds_wanted; /* the destructor sets the key again until it ran this often */
    int calls;
    struct round_seen seen[MAX_ROUNDS];
};

static void exit_destructor(void *arg)
{
    struct exiting_thread *t = (struct exiting_thread *)arg;
    struct round_seen *r = &t->seen[t->calls < MAX_ROUNDS ? t->calls : MAX_ROUNDS - 1];
    t->calls++;
    const char *before = aclGetRecentErrMsg();
    r->text_before = before != NULL && strstr(before, "[aclrtSynchronizeStream]") != NULL;
    r->set_device = aclrtSetDevice(-1);
    r->destroy_stream = aclrtDestroyStream(GARBAGE_STREAM);
    r->last_error = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    const char *text = aclGetRecentErrMsg();
    r->text_null = text == NULL;
    r->text_has_set = text != NULL && strstr(text, "[aclrtSetDevice]") != NULL;
    r->text_has_destroy = text != NULL && strstr(text, "[aclrtDestroyStream]") != NULL;
    r->second_read_null = aclGetRecentErrMsg() == NULL;
    if (t->calls < t->rounds_wanted)
        pthread_setspecific(t->key, t); /* run again in the next round */
}

static aclrtContext main_context;

static void *exiting_main(void *arg)
{
    struct exiting_thread *t = (struct exiting_thread *)arg;
    aclrtSetCurrentContext(main_context); /* so that destroying a garbage stream is about the handle */
    if (t->fail_in_body)
        aclrtSynchronizeStream(GARBAGE_STREAM); /* leaves a line unread */
    pthread_setspecific(t->key, t);
    return NULL;
}

static void run_exiting_threads(struct exiting_thread *t, int n)
{
    pthread_t th[8];
    for (int i = 0; i < n; i++)
        CHECK_EQ(0, pthread_create(&th[i], NULL, exiting_main, &t[i]));
    for (int i = 0; i < n; i++)
        CHECK_EQ(0, pthread_join(th[i], NULL));
}

/* A destructor call whose two failing calls returned their codes and whose text holds both lines. */
static void check_round_with_text(const struct round_seen *r)
{
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, r->set_device);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, r->destroy_stream);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, r->last_error);
    CHECK_EQ(0, r->text_null);
    CHECK_EQ(1, r->text_has_set);
    CHECK_EQ(1, r->text_has_destroy);
    CHECK_EQ(1, r->second_read_null);
}

/* ------------------------------------------------------------------------
 * Cases
 * ------------------------------------------------------------------------ */

TEST(a_destructor_running_after_the_runtime_released_the_text_gets_codes_and_new_lines)
{
    struct exiting_thread t = {.key = late_key, .fail_in_body = 1, .rounds_wanted = 1};
    run_exiting_threads(&t, 1);
    CHECK_EQ(1, t.calls);
    check_round_with_text(&t.seen[0]);
}

TEST(a_destructor_running_before_the_runtime_releases_the_text_reads_the_threads_lines)
{
    struct exiting_thread t = {.key = early_key, .fail_in_body = 1, .rounds_wanted = 1};
    run_exiting_threads(&t, 1);
    CHECK_EQ(1, t.calls);
    CHECK_EQ(1, t.seen[0].text_before); /* the line the thread body left unread */
    check_round_with_text(&t.seen[0]);
}

TEST(a_destructor_of_a_thread_that_never_failed_gets_codes_and_lines)
{
    struct exiting_thread t[2] = {{.key = late_key, .rounds_wanted = 1}, {.key = early_key, .rounds_wanted = 1}};
    run_exiting_threads(t, 2);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(1, t[i].calls);
        CHECK_EQ(0, t[i].seen[0].text_before);
        check_round_with_text(&t[i].seen[0]);
    }
}

/*
 * The destructor sets its key again in every round: the C library calls it
 * PTHREAD_DESTRUCTOR_ITERATIONS times. Every call gets its codes. The text
 * is there in every round, except for a destructor that runs after the
 * runtime's in the last round: a buffer allocated then would never be
 * freed (LeakSanitizer checks that none was), so that round keeps no text.
 */
TEST(a_destructor_called_in_every_round_gets_codes_in_each_and_lines_until_the_last)
{
    enum { LATE_FAILED, EARLY_FAILED, EARLY_NEVER_FAILED, N };
    struct exiting_thread t[N] = {
        [LATE_FAILED] = {.key = late_key, .fail_in_body = 1, .rounds_wanted = ROUNDS_RUN},
        [EARLY_FAILED] = {.key = early_key, .fail_in_body = 1, .rounds_wanted = ROUNDS_RUN},
        [EARLY_NEVER_FAILED] = {.key = early_key, .rounds_wanted = ROUNDS_RUN},
    };
    run_exiting_threads(t, N); /* at once: the threads share nothing but the runtime */
    for (int i = 0; i < N; i++) {
        CHECK_EQ(ROUNDS_RUN, t[i].calls);
        for (int r = 0; r < PTHREAD_DESTRUCTOR_ITERATIONS - 1; r++)
            check_round_with_text(&t[i].seen[r]);
    }
    if (ROUNDS_RUN < PTHREAD_DESTRUCTOR_ITERATIONS)
        return;
    const struct round_seen *last = &t[LATE_FAILED].seen[PTHREAD_DESTRUCTOR_ITERATIONS - 1];
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, last->set_device);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, last->destroy_stream);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, last->last_error);
    CHECK_EQ(1, last->text_null);
    check_round_with_text(&t[EARLY_FAILED].seen[PTHREAD_DESTRUCTOR_ITERATIONS - 1]);
    check_round_with_text(&t[EARLY_NEVER_FAILED].seen[PTHREAD_DESTRUCTOR_ITERATIONS - 1]);
}

/* A thread that never failed, its destructor after the runtime's, through every round but the last. */
TEST(a_thread_that_never_failed_gets_lines_in_each_destructor_round_after_the_runtimes)
{
    struct exiting_thread t = {.key = late_key, .rounds_wanted = PTHREAD_DESTRUCTOR_ITERATIONS - 1};
    run_exiting_threads(&t, 1);
    CHECK_EQ(PTHREAD_DESTRUCTOR_ITERATIONS - 1, t.calls);
    for (int r = 0; r < PTHREAD_DESTRUCTOR_ITERATIONS - 1; r++)
        check_round_with_text(&t.seen[r]);
}

int main(void)
{
    /* Before anything fails in this process: this key comes before the runtime's. */
    if (pthread_key_create(&early_key, exit_destructor) != 0)
        return 1;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    /* A failure makes the runtime create its key; this one comes after it. */
    if (aclrtSetDevice(-1) != ACL_ERROR_RT_INVALID_DEVICEID || aclGetRecentErrMsg() == NULL ||
        pthread_key_create(&late_key, exit_destructor) != 0)
        return 1;

    RUN(a_destructor_running_after_the_runtime_released_the_text_gets_codes_and_new_lines);
    RUN(a_destructor_running_before_the_runtime_releases_the_text_reads_the_threads_lines);
    RUN(a_destructor_of_a_thread_that_never_failed_gets_codes_and_lines);
    RUN(a_destructor_called_in_every_round_gets_codes_in_each_and_lines_until_the_last);
    RUN(a_thread_that_never_failed_gets_lines_in_each_destructor_round_after_the_runtimes);

    aclrtResetDevice(0);
    aclFinalize();
    return check_report("errmsg_exit");
}
