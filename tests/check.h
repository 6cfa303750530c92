/*
 * tests/check.h - the test harness: checks that print what they expected
 * and what they saw, and a runner that names each case.
 *
 *   TEST(re_record_does_not_change_a_pending_wait) { ... }
 *   int main(void) { RUN(re_record_does_not_change_a_pending_wait); return check_report(); }
 *
 * A failing check prints file:line, the case, the expression, expected and
 * seen values, then the runtime's recent error text, and the case stops.
 */
#ifndef ACLRT_TESTS_CHECK_H
#define ACLRT_TESTS_CHECK_H

#include "acl/acl.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;
static int check_cases;
static const char *check_case_name = "";
static jmp_buf check_case_abort;

#define TEST(name) static void name(void)

static void check_failed_head(const char *file, int line, const char *expr)
{
    fprintf(stderr, "FAIL %s:%d [%s]\n  check: %s\n", file, line, check_case_name, expr);
}

static void check_failed_tail(void)
{
    const char *msg = aclGetRecentErrMsg();
    if (msg != NULL)
        fprintf(stderr, "  runtime said: %s\n", msg);
    check_failures++;
    longjmp(check_case_abort, 1);
}

#define CHECK(cond)                                                 \
    do {                                                            \
        if (!(cond)) {                                              \
            check_failed_head(__FILE__, __LINE__, #cond);           \
            check_failed_tail();                                    \
        }                                                           \
    } while (0)

#define CHECK_EQ(expected, actual)                                                                  \
    do {                                                                                            \
        long long check_e_ = (long long)(expected), check_a_ = (long long)(actual);                 \
        if (check_e_ != check_a_) {                                                                 \
            check_failed_head(__FILE__, __LINE__, #actual " == " #expected);                        \
            fprintf(stderr, "  expected %lld, saw %lld\n", check_e_, check_a_);                     \
            check_failed_tail();                                                                    \
        }                                                                                           \
    } while (0)

/* An ACL call that must succeed. */
#define CHECK_OK(call) CHECK_EQ(ACL_SUCCESS, (call))

#define CHECK_STR_CONTAINS(haystack, needle)                                                        \
    do {                                                                                            \
        const char *check_h_ = (haystack);                                                          \
        if (check_h_ == NULL || strstr(check_h_, (needle)) == NULL) {                               \
            check_failed_head(__FILE__, __LINE__, #haystack " contains " #needle);                  \
            fprintf(stderr, "  expected text containing \"%s\", saw \"%s\"\n", (needle),            \
                    check_h_ ? check_h_ : "(null)");                                                \
            check_failed_tail();                                                                    \
        }                                                                                           \
    } while (0)

static void check_run(const char *name, void (*fn)(void))
{
    check_case_name = name;
    check_cases++;
    aclGetRecentErrMsg(); /* start each case with no leftover text */
    if (getenv("CHECK_VERBOSE"))
        fprintf(stderr, "run  %s\n", name); /* a hang names its case */
    if (setjmp(check_case_abort) == 0) {
        fn();
        if (getenv("CHECK_VERBOSE"))
            fprintf(stderr, "ok   %s\n", name);
    }
}

#define RUN(name) check_run(#name, name)

/*
 * Device memory, seen from the host: the host never dereferences it (a GPU's
 * memory is not the CPU's, nor is an NPU's), it copies. dev_read and
 * dev_write copy on a stream of their own and wait for it alone, so they wait
 * for nothing else (a synchronous aclrtMemcpy waits for the device's running
 * tasks, such as a closed gate). Either end may be host memory too.
 */
static void dev_copy(void *dst, const void *src, size_t n)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMemcpyAsync(dst, n, src, n, ACL_MEMCPY_DEFAULT, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
}

static void dev_read(void *out, const void *p, size_t n) { dev_copy(out, p, n); }

/*
 * A look at memory that a stream held by a gate (gate.h) will write: it
 * races with that stream on purpose (the test knows the gate holds it), so
 * the stream-ordering sanitizer (ACLRT_SANITIZE) is told to let it be.
 */
static void dev_peek(void *out, const void *p, size_t n)
{
    aclrtxSanitizerIgnoreBegin();
    dev_copy(out, p, n);
    aclrtxSanitizerIgnoreEnd();
}
static void dev_write(void *p, const void *in, size_t n) { dev_copy(p, in, n); }

/* Are the n bytes at p (device or host memory) all v? */
static int dev_all_bytes_are(const void *p, size_t n, unsigned char v)
{
    unsigned char *buf = (unsigned char *)malloc(n != 0 ? n : 1);
    CHECK(buf != NULL);
    dev_read(buf, p, n);
    size_t i = 0;
    while (i < n && buf[i] == v)
        i++;
    free(buf);
    return i == n;
}

/* A byte pattern of `seed` (host memory), and the same through copies (device or host memory). */
static void fill_pattern(void *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = (unsigned char)(i * 31u + seed);
}

static int has_pattern(const void *p, size_t n, unsigned seed)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 31u + seed))
            return 0;
    return 1;
}

static void dev_fill_pattern(void *dev, size_t n, unsigned seed)
{
    unsigned char *b = (unsigned char *)malloc(n != 0 ? n : 1);
    CHECK(b != NULL);
    fill_pattern(b, n, seed);
    dev_write(dev, b, n);
    free(b);
}

static int dev_has_pattern(const void *dev, size_t n, unsigned seed)
{
    unsigned char *b = (unsigned char *)malloc(n != 0 ? n : 1);
    CHECK(b != NULL);
    dev_read(b, dev, n);
    int ok = has_pattern(b, n, seed);
    free(b);
    return ok;
}

static int check_report(const char *suite)
{
    if (check_failures == 0)
        printf("%-22s %3d cases passed\n", suite, check_cases);
    else
        printf("%-22s %d of %d cases FAILED\n", suite, check_failures, check_cases);
    return check_failures == 0 ? 0 : 1;
}

#endif /* ACLRT_TESTS_CHECK_H */
