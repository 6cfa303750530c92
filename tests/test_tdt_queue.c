/*
 * tests/test_tdt_queue.c - pins the shared queues of acl_tdt_queue.h
 * (docs/SEMANTICS.md, Shared queues): attributes, routes, route lists and
 * queries as objects; messages in order, mbuf chains and bytes with user
 * data; timeouts (0 answers at once, a positive one waits at least that
 * long, -1 until it can); waiters woken by the other side and by destroy;
 * names; routes that forward, their queries, cycles refused; grants and
 * attaching from another process (this program again, by exec), and the
 * rights a child of fork() does not inherit; bad input.
 *
 * A blocked call is proven blocked by what it returns, never by sleeping.
 */
#define _GNU_SOURCE

#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint32_t make_queue(uint32_t depth)
{
    acltdtQueueAttr *attr = acltdtCreateQueueAttr();
    CHECK(attr != NULL);
    CHECK_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &depth));
    uint32_t qid = UINT32_MAX;
    CHECK_OK(acltdtCreateQueue(attr, &qid));
    CHECK_OK(acltdtDestroyQueueAttr(attr));
    return qid;
}

static void put_text(uint32_t qid, const char *s, int32_t timeout)
{
    CHECK_OK(acltdtEnqueueData(qid, s, strlen(s) + 1, NULL, 0, timeout, 0));
}

static void get_text(uint32_t qid, const char *want, int32_t timeout)
{
    char buf[64];
    size_t n = 0;
    CHECK_OK(acltdtDequeueData(qid, buf, sizeof buf, &n, NULL, 0, timeout));
    CHECK_EQ(strlen(want) + 1, n);
    CHECK_EQ(0, strcmp(want, buf));
}

TEST(attributes_routes_and_queries_are_plain_objects)
{
    acltdtQueueAttr *attr = acltdtCreateQueueAttr();
    CHECK(attr != NULL);
    const char *name = "attr_name", *got = NULL;
    uint32_t depth = 0;
    size_t ret = 0;
    CHECK_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &ret, &depth));
    CHECK_EQ(8u, depth); /* the default */
    CHECK_EQ(sizeof depth, ret);
    CHECK_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof name, &name));
    CHECK_OK(acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof got, &ret, &got));
    CHECK_EQ(0, strcmp("attr_name", got));
    CHECK(got != name); /* the attribute keeps its own copy */
    CHECK_EQ(sizeof got, ret);
    depth = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof depth, &depth));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 2, &depth));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueAttr(attr, (acltdtQueueAttrType)7, 4, &depth));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 2, &ret, &depth));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetQueueAttr(attr, ACL_TDT_QUEUE_DEPTH_UINT32, 4, NULL, &depth));
    char longname[200];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *lp = longname;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof lp, &lp));
    CHECK_OK(acltdtDestroyQueueAttr(attr));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyQueueAttr(NULL));

    acltdtQueueRoute *r = acltdtCreateQueueRoute(3, 4);
    CHECK(r != NULL);
    uint32_t v = 0;
    int32_t st = -1;
    CHECK_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, sizeof v, &ret, &v));
    CHECK_EQ(3u, v);
    CHECK_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_DST_UINT32, sizeof v, &ret, &v));
    CHECK_EQ(4u, v);
    CHECK_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, sizeof st, &ret, &st));
    CHECK_EQ(ACL_TDT_QUEUE_ROUTE_UNBIND, st);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetQueueRouteParam(r, (acltdtQueueRouteParamType)9, 4, &ret, &v));
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    CHECK(l != NULL);
    CHECK_EQ((size_t)0, acltdtGetQueueRouteNum(l));
    CHECK_OK(acltdtAddQueueRoute(l, r));
    CHECK_OK(acltdtAddQueueRoute(l, r));
    CHECK_EQ((size_t)2, acltdtGetQueueRouteNum(l));
    acltdtQueueRoute *out = acltdtCreateQueueRoute(0, 0);
    CHECK_OK(acltdtGetQueueRoute(l, 1, out));
    CHECK_OK(acltdtGetQueueRouteParam(out, ACL_TDT_QUEUE_ROUTE_DST_UINT32, sizeof v, &ret, &v));
    CHECK_EQ(4u, v);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetQueueRoute(l, 2, out));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAddQueueRoute(l, NULL));
    CHECK_EQ((size_t)0, acltdtGetQueueRouteNum(NULL));
    CHECK_OK(acltdtDestroyQueueRoute(out));
    CHECK_OK(acltdtDestroyQueueRoute(r));
    CHECK_OK(acltdtDestroyQueueRouteList(l));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyQueueRoute(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyQueueRouteList(NULL));

    acltdtQueueRouteQueryInfo *q = acltdtCreateQueueRouteQueryInfo();
    CHECK(q != NULL);
    acltdtQueueRouteQueryMode mode = ACL_TDT_QUEUE_ROUTE_QUERY_SRC;
    CHECK_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    mode = (acltdtQueueRouteQueryMode)5;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, 8, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSetQueueRouteQueryInfo(NULL, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, 4, &v));
    CHECK_OK(acltdtDestroyQueueRouteQueryInfo(q));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyQueueRouteQueryInfo(NULL));
}

TEST(messages_come_out_in_order_with_their_user_data)
{
    uint32_t qid = make_queue(4);
    char user[96];
    memset(user, 'u', sizeof user);
    CHECK_OK(acltdtEnqueueData(qid, "first", 6, user, sizeof user, 0, 0));
    put_text(qid, "second", 0);
    /* An mbuf chain travels whole: lengths, user data, every buffer's bytes. */
    acltdtBuf h, m;
    CHECK_OK(acltdtAllocBuf(8, ACL_TDT_NORMAL_MEM, &h));
    CHECK_OK(acltdtAllocBuf(4, ACL_TDT_NORMAL_MEM, &m));
    void *d;
    size_t s;
    CHECK_OK(acltdtGetBufData(h, &d, &s));
    memcpy(d, "head", 4);
    CHECK_OK(acltdtSetBufDataLen(h, 4));
    CHECK_OK(acltdtSetBufUserData(h, "ctx", 3, 5));
    CHECK_OK(acltdtGetBufData(m, &d, &s));
    memcpy(d, "tail", 4);
    CHECK_OK(acltdtSetBufDataLen(m, 4));
    CHECK_OK(acltdtAppendBufChain(h, m));
    CHECK_OK(acltdtEnqueue(qid, h, 0));
    uint32_t n;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetBufChainNum(h, &n)); /* the queue took it */

    char buf[16], got_user[96];
    size_t ret = 0;
    memset(got_user, 0, sizeof got_user);
    CHECK_OK(acltdtDequeueData(qid, buf, sizeof buf, &ret, got_user, sizeof got_user, 0));
    CHECK_EQ((size_t)6, ret);
    CHECK_EQ(0, strcmp("first", buf));
    CHECK_EQ(0, memcmp(user, got_user, sizeof user));
    get_text(qid, "second", 0);
    acltdtBuf out, part;
    CHECK_OK(acltdtDequeue(qid, &out, 0));
    CHECK_OK(acltdtGetBufChainNum(out, &n));
    CHECK_EQ(2u, n);
    size_t len;
    CHECK_OK(acltdtGetBufData(out, &d, &s));
    CHECK_EQ((size_t)8, s);
    CHECK_OK(acltdtGetBufDataLen(out, &len));
    CHECK_EQ((size_t)4, len);
    CHECK_EQ(0, memcmp(d, "head", 4));
    char ctx[3];
    CHECK_OK(acltdtGetBufUserData(out, ctx, 3, 5));
    CHECK_EQ(0, memcmp(ctx, "ctx", 3));
    CHECK_OK(acltdtGetBufFromChain(out, 1, &part));
    CHECK_OK(acltdtGetBufData(part, &d, &s));
    CHECK_EQ(0, memcmp(d, "tail", 4));
    CHECK_OK(acltdtFreeBuf(out));

    /* A chain read as bytes: each buffer's valid bytes, in order. */
    CHECK_OK(acltdtAllocBuf(8, ACL_TDT_NORMAL_MEM, &h));
    CHECK_OK(acltdtAllocBuf(4, ACL_TDT_NORMAL_MEM, &m));
    CHECK_OK(acltdtGetBufData(h, &d, &s));
    memcpy(d, "ab", 2);
    CHECK_OK(acltdtSetBufDataLen(h, 2));
    CHECK_OK(acltdtGetBufData(m, &d, &s));
    memcpy(d, "cd", 3);
    CHECK_OK(acltdtSetBufDataLen(m, 3));
    CHECK_OK(acltdtAppendBufChain(h, m));
    CHECK_OK(acltdtEnqueue(qid, h, 0));
    get_text(qid, "abcd", 0);
    CHECK_OK(acltdtDestroyQueue(qid));
}

TEST(timeouts_answer_at_once_or_after_waiting)
{
    uint32_t qid = make_queue(2);
    char buf[8];
    size_t ret;
    acltdtBuf b;
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtDequeueData(qid, buf, sizeof buf, &ret, NULL, 0, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is empty");
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtDequeue(qid, &b, 0));
    uint64_t t0 = now_ms();
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtDequeue(qid, &b, 60));
    CHECK(now_ms() - t0 >= 60);
    put_text(qid, "1", 0);
    put_text(qid, "2", -1); /* room: -1 returns at once too */
    CHECK_EQ(ACL_ERROR_RT_QUEUE_FULL, acltdtEnqueueData(qid, "3", 2, NULL, 0, 0, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is full");
    t0 = now_ms();
    CHECK_EQ(ACL_ERROR_RT_QUEUE_FULL, acltdtEnqueueData(qid, "3", 2, NULL, 0, 40, 0));
    CHECK(now_ms() - t0 >= 40);
    /* A full queue leaves the buffer with its owner. */
    CHECK_OK(acltdtAllocBuf(4, ACL_TDT_NORMAL_MEM, &b));
    CHECK_EQ(ACL_ERROR_RT_QUEUE_FULL, acltdtEnqueue(qid, b, 0));
    CHECK_OK(acltdtFreeBuf(b));
    get_text(qid, "1", 0);
    get_text(qid, "2", 0);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtEnqueueData(qid, "x", 2, NULL, 0, -2, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeue(qid, &b, -5));
    CHECK_OK(acltdtDestroyQueue(qid));
}

struct waiter {
    uint32_t qid;
    int32_t timeout;
    aclError rc;
    char text[16];
};

static void *dequeue_text(void *arg)
{
    struct waiter *w = (struct waiter *)arg;
    size_t n = 0;
    w->rc = acltdtDequeueData(w->qid, w->text, sizeof w->text, &n, NULL, 0, w->timeout);
    return NULL;
}

static void *enqueue_text(void *arg)
{
    struct waiter *w = (struct waiter *)arg;
    w->rc = acltdtEnqueueData(w->qid, w->text, strlen(w->text) + 1, NULL, 0, w->timeout, 0);
    return NULL;
}

TEST(blocked_threads_go_on_when_the_other_side_acts)
{
    uint32_t qid = make_queue(1);
    /* A consumer waiting without end gets what a producer enqueues later. */
    struct waiter w = {qid, -1, -1, ""};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, dequeue_text, &w));
    put_text(qid, "late", -1);
    CHECK_EQ(0, pthread_join(t, NULL));
    CHECK_OK(w.rc);
    CHECK_EQ(0, strcmp("late", w.text));
    /* A producer waiting on a full queue gets in once a consumer makes room. */
    put_text(qid, "fill", 0);
    struct waiter p = {qid, -1, -1, "waited"};
    CHECK_EQ(0, pthread_create(&t, NULL, enqueue_text, &p));
    get_text(qid, "fill", -1);
    get_text(qid, "waited", -1); /* returns once the producer is in */
    CHECK_EQ(0, pthread_join(t, NULL));
    CHECK_OK(p.rc);
    /* Several consumers waiting at once: each gets one message. */
    enum { THREADS = 4 };
    static struct waiter many[THREADS];
    pthread_t pt[THREADS];
    for (int i = 0; i < THREADS; i++) {
        many[i] = (struct waiter){qid, -1, ACL_SUCCESS, ""};
        CHECK_EQ(0, pthread_create(&pt[i], NULL, dequeue_text, &many[i]));
    }
    for (int i = 0; i < THREADS; i++)
        put_text(qid, "m", -1);
    for (int i = 0; i < THREADS; i++) {
        CHECK_EQ(0, pthread_join(pt[i], NULL));
        CHECK_OK(many[i].rc);
    }
    CHECK_OK(acltdtDestroyQueue(qid));
}

TEST(destroy_wakes_the_waiters_and_ends_the_qid)
{
    uint32_t qid = make_queue(2);
    struct waiter w = {qid, -1, ACL_SUCCESS, ""};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, dequeue_text, &w));
    put_text(qid, "left", 0);
    put_text(qid, "over", 0);
    CHECK_OK(acltdtDestroyQueue(qid));
    CHECK_EQ(0, pthread_join(t, NULL));
    /* The waiter got a message or saw the queue go; never a hang. */
    CHECK(w.rc == ACL_SUCCESS || w.rc == ACL_ERROR_INVALID_PARAM);
    char buf[8];
    size_t n;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeueData(qid, buf, sizeof buf, &n, NULL, 0, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not a queue");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyQueue(qid));
}

TEST(a_message_larger_than_the_buffer_stays_and_says_its_size)
{
    uint32_t qid = make_queue(2);
    put_text(qid, "a long message", 0);
    char small[4];
    size_t n = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeueData(qid, small, sizeof small, &n, NULL, 0, 0));
    CHECK_EQ(strlen("a long message") + 1, n);
    get_text(qid, "a long message", 0);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeueData(qid, NULL, 4, &n, NULL, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeueData(qid, small, 4, NULL, NULL, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeueData(qid, small, 4, &n, small, 97, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtEnqueueData(qid, NULL, 4, NULL, 0, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtEnqueueData(qid, "x", 0, NULL, 0, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtEnqueueData(qid, "x", 1, NULL, 4, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtEnqueue(qid, NULL, 0));
    static char garbage[64];
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtEnqueue(qid, garbage, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDequeue(qid, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtCreateQueue(NULL, NULL));
    CHECK_OK(acltdtDestroyQueue(qid));
}

TEST(a_name_belongs_to_one_live_queue)
{
    char name[64];
    snprintf(name, sizeof name, "test_tdt_queue_%d", (int)getpid());
    const char *np = name;
    acltdtQueueAttr *attr = acltdtCreateQueueAttr();
    CHECK_OK(acltdtSetQueueAttr(attr, ACL_TDT_QUEUE_NAME_PTR, sizeof np, &np));
    uint32_t a, b;
    CHECK_OK(acltdtCreateQueue(attr, &a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtCreateQueue(attr, &b));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "exists");
    CHECK_OK(acltdtDestroyQueue(a));
    CHECK_OK(acltdtCreateQueue(attr, &b)); /* free again */
    CHECK_OK(acltdtDestroyQueue(b));
    CHECK_OK(acltdtDestroyQueueAttr(attr));
    /* No attribute: the defaults. */
    CHECK_OK(acltdtCreateQueue(NULL, &a));
    for (int i = 0; i < 8; i++)
        put_text(a, "d", 0);
    CHECK_EQ(ACL_ERROR_RT_QUEUE_FULL, acltdtEnqueueData(a, "d", 2, NULL, 0, 0, 0));
    CHECK_OK(acltdtDestroyQueue(a));
}

static acltdtQueueRouteList *route_list(uint32_t src, uint32_t dst)
{
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    acltdtQueueRoute *r = acltdtCreateQueueRoute(src, dst);
    CHECK_OK(acltdtAddQueueRoute(l, r));
    CHECK_OK(acltdtDestroyQueueRoute(r));
    return l;
}

static int32_t route_status(acltdtQueueRouteList *l, size_t i)
{
    acltdtQueueRoute *r = acltdtCreateQueueRoute(0, 0);
    int32_t st = -1;
    size_t ret;
    CHECK_OK(acltdtGetQueueRoute(l, i, r));
    CHECK_OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, sizeof st, &ret, &st));
    CHECK_OK(acltdtDestroyQueueRoute(r));
    return st;
}

static size_t query(acltdtQueueRouteQueryMode mode, uint32_t src, uint32_t dst, acltdtQueueRouteList *out)
{
    acltdtQueueRouteQueryInfo *q = acltdtCreateQueueRouteQueryInfo();
    CHECK_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof mode, &mode));
    CHECK_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, sizeof src, &src));
    CHECK_OK(acltdtSetQueueRouteQueryInfo(q, ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32, sizeof dst, &dst));
    CHECK_OK(acltdtQueryQueueRoutes(q, out));
    CHECK_OK(acltdtDestroyQueueRouteQueryInfo(q));
    return acltdtGetQueueRouteNum(out);
}

TEST(routes_forward_to_every_destination)
{
    uint32_t src = make_queue(4), d1 = make_queue(4), d2 = make_queue(4);
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    acltdtQueueRoute *r1 = acltdtCreateQueueRoute(src, d1), *r2 = acltdtCreateQueueRoute(src, d2);
    CHECK_OK(acltdtAddQueueRoute(l, r1));
    CHECK_OK(acltdtAddQueueRoute(l, r2));
    CHECK_OK(acltdtBindQueueRoutes(l));
    CHECK_EQ(ACL_TDT_QUEUE_ROUTE_BIND, route_status(l, 0));
    CHECK_EQ(ACL_TDT_QUEUE_ROUTE_BIND, route_status(l, 1));
    CHECK_OK(acltdtBindQueueRoutes(l)); /* bound again: still one route each */

    put_text(src, "fan-out", 0);
    get_text(d1, "fan-out", 0);
    get_text(d2, "fan-out", 0);
    char buf[8];
    size_t n;
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtDequeueData(src, buf, sizeof buf, &n, NULL, 0, 0));

    acltdtQueueRouteList *found = acltdtCreateQueueRouteList();
    CHECK_EQ((size_t)2, query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 0, found));
    CHECK_EQ((size_t)1, query(ACL_TDT_QUEUE_ROUTE_QUERY_DST, 0, d2, found));
    acltdtQueueRoute *got = acltdtCreateQueueRoute(0, 0);
    uint32_t v;
    size_t ret;
    CHECK_OK(acltdtGetQueueRoute(found, 0, got));
    CHECK_OK(acltdtGetQueueRouteParam(got, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, sizeof v, &ret, &v));
    CHECK_EQ(src, v);
    CHECK_EQ(ACL_TDT_QUEUE_ROUTE_BIND, route_status(found, 0));
    CHECK_EQ((size_t)1, query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, src, d1, found));
    CHECK_EQ((size_t)0, query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, d1, src, found));
    CHECK_EQ((size_t)0, query(ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL, src, d1, found));

    /* A route back to the source would close a cycle: refused, and its status says so. */
    acltdtQueueRouteList *back = route_list(d1, src);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtBindQueueRoutes(back));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cycle");
    CHECK_EQ(ACL_TDT_QUEUE_ROUTE_UNBIND, route_status(back, 0));
    CHECK_OK(acltdtDestroyQueueRouteList(back));
    acltdtQueueRouteList *self = route_list(d1, d1);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtBindQueueRoutes(self));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtUnbindQueueRoutes(self)); /* refused, not a hang */
    CHECK_OK(acltdtDestroyQueueRouteList(self));

    /* Unbound: what is enqueued stays in the source. */
    CHECK_OK(acltdtUnbindQueueRoutes(l));
    CHECK_EQ(ACL_TDT_QUEUE_ROUTE_UNBIND, route_status(l, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtUnbindQueueRoutes(l)); /* not bound any more */
    CHECK_EQ((size_t)0, query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 0, found));
    put_text(src, "kept", 0);
    get_text(src, "kept", 0);
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtDequeueData(d1, buf, sizeof buf, &n, NULL, 0, 0));

    /* Destroying a destination ends its routes. */
    CHECK_OK(acltdtBindQueueRoutes(l));
    CHECK_OK(acltdtDestroyQueue(d2));
    CHECK_EQ((size_t)1, query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 0, found));
    put_text(src, "one", 0);
    get_text(d1, "one", 0);

    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtBindQueueRoutes(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtQueryQueueRoutes(NULL, found));
    acltdtQueueRouteQueryInfo *nomode = acltdtCreateQueueRouteQueryInfo();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtQueryQueueRoutes(nomode, found));
    CHECK_OK(acltdtDestroyQueueRouteQueryInfo(nomode));
    CHECK_OK(acltdtDestroyQueueRoute(got));
    CHECK_OK(acltdtDestroyQueueRouteList(found));
    CHECK_OK(acltdtDestroyQueueRoute(r1));
    CHECK_OK(acltdtDestroyQueueRoute(r2));
    CHECK_OK(acltdtDestroyQueueRouteList(l));
    CHECK_OK(acltdtDestroyQueue(d1));
    CHECK_OK(acltdtDestroyQueue(src));
}

/* The peer process: this program again, given two queues and a pipe. */
static int peer_main(uint32_t to_parent, uint32_t to_peer, int ready_fd)
{
    int fails = 0;
#define PEER_EXPECT(c)                                                                  \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "peer: %s:%d: %s: %s\n", __FILE__, __LINE__, #c,            \
                    aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                  \
            fails++;                                                                    \
        }                                                                               \
    } while (0)
    uint32_t perm = 0;
    acltdtBuf b0 = NULL;
    PEER_EXPECT(acltdtEnqueueData(to_parent, "x", 2, NULL, 0, 0, 0) == ACL_ERROR_RT_NO_PERMISSION);
    PEER_EXPECT(acltdtAttachQueue(to_parent, 0, &perm) == ACL_ERROR_RT_NO_PERMISSION);
    PEER_EXPECT(acltdtGrantQueue(to_parent, getpid(), ACL_TDT_QUEUE_PERMISSION_ENQUEUE, 0) ==
                ACL_ERROR_RT_NO_PERMISSION);
    PEER_EXPECT(write(ready_fd, "r", 1) == 1);
    /* Waits until the parent grants. */
    PEER_EXPECT(acltdtAttachQueue(to_parent, -1, &perm) == ACL_SUCCESS);
    PEER_EXPECT(perm == ACL_TDT_QUEUE_PERMISSION_ENQUEUE);
    PEER_EXPECT(acltdtAttachQueue(to_peer, -1, &perm) == ACL_SUCCESS);
    PEER_EXPECT(perm == ACL_TDT_QUEUE_PERMISSION_DEQUEUE);
    PEER_EXPECT(acltdtEnqueueData(to_parent, "hello", 6, "ud", 2, -1, 0) == ACL_SUCCESS);
    /* Attaching again reads the grants again: the parent adds DEQUEUE once it has read "hello". */
    PEER_EXPECT(acltdtDequeue(to_peer, &b0, -1) == ACL_SUCCESS); /* its go-ahead */
    PEER_EXPECT(acltdtFreeBuf(b0) == ACL_SUCCESS);
    PEER_EXPECT(acltdtAttachQueue(to_parent, 0, &perm) == ACL_SUCCESS);
    PEER_EXPECT(perm == (ACL_TDT_QUEUE_PERMISSION_ENQUEUE | ACL_TDT_QUEUE_PERMISSION_DEQUEUE));
    acltdtBuf b = NULL;
    PEER_EXPECT(acltdtDequeue(to_peer, &b, -1) == ACL_SUCCESS);
    void *d = NULL;
    size_t s = 0, len = 0;
    PEER_EXPECT(acltdtGetBufData(b, &d, &s) == ACL_SUCCESS);
    PEER_EXPECT(acltdtGetBufDataLen(b, &len) == ACL_SUCCESS);
    PEER_EXPECT(len == 6 && d != NULL && memcmp(d, "reply", 6) == 0);
    PEER_EXPECT(acltdtFreeBuf(b) == ACL_SUCCESS);
    /* The peer may not enqueue where it may only dequeue, nor destroy. */
    PEER_EXPECT(acltdtEnqueueData(to_peer, "x", 2, NULL, 0, 0, 0) == ACL_ERROR_RT_NO_PERMISSION);
    PEER_EXPECT(acltdtDestroyQueue(to_parent) == ACL_ERROR_RT_NO_PERMISSION);
    return fails;
}

TEST(another_process_attaches_what_it_was_granted)
{
    uint32_t to_parent = make_queue(2), to_peer = make_queue(2);
    int ready[2];
    CHECK_EQ(0, pipe(ready));
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char a[16], b[16], fd[16];
        snprintf(a, sizeof a, "%u", to_parent);
        snprintf(b, sizeof b, "%u", to_peer);
        snprintf(fd, sizeof fd, "%d", ready[1]);
        close(ready[0]);
        execl("/proc/self/exe", "test_tdt_queue", "--peer", a, b, fd, (char *)NULL);
        _exit(127);
    }
    close(ready[1]);
    char c;
    CHECK_EQ((ssize_t)1, read(ready[0], &c, 1)); /* the peer checked it has no rights yet */
    close(ready[0]);
    CHECK_OK(acltdtGrantQueue(to_parent, pid, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, 0));
    CHECK_OK(acltdtGrantQueue(to_peer, pid, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, -1));
    char buf[8], ud[2];
    size_t n;
    CHECK_OK(acltdtDequeueData(to_parent, buf, sizeof buf, &n, ud, sizeof ud, -1));
    CHECK_EQ((size_t)6, n);
    CHECK_EQ(0, strcmp("hello", buf));
    CHECK_EQ(0, memcmp("ud", ud, 2));
    CHECK_OK(acltdtGrantQueue(to_parent, pid, ACL_TDT_QUEUE_PERMISSION_DEQUEUE, 0));
    put_text(to_peer, "go", -1);
    acltdtBuf b;
    void *d;
    size_t s;
    CHECK_OK(acltdtAllocBuf(16, ACL_TDT_NORMAL_MEM, &b));
    CHECK_OK(acltdtGetBufData(b, &d, &s));
    memcpy(d, "reply", 6);
    CHECK_OK(acltdtSetBufDataLen(b, 6));
    CHECK_OK(acltdtEnqueue(to_peer, b, -1));
    int status = 0;
    CHECK_EQ(pid, waitpid(pid, &status, 0));
    CHECK(WIFEXITED(status));
    CHECK_EQ(0, WEXITSTATUS(status));
    /* The creator's rights, as attaching reports them. */
    uint32_t perm = 0;
    CHECK_OK(acltdtAttachQueue(to_parent, 0, &perm));
    CHECK_EQ((uint32_t)(ACL_TDT_QUEUE_PERMISSION_MANAGE | ACL_TDT_QUEUE_PERMISSION_DEQUEUE |
                        ACL_TDT_QUEUE_PERMISSION_ENQUEUE),
             perm);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGrantQueue(to_parent, 0, ACL_TDT_QUEUE_PERMISSION_ENQUEUE, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGrantQueue(to_parent, pid, 8, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGrantQueue(to_parent, pid, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAttachQueue(to_parent, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAttachQueue(to_parent, -3, &perm));
    CHECK_OK(acltdtDestroyQueue(to_parent));
    CHECK_OK(acltdtDestroyQueue(to_peer));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAttachQueue(to_peer, 0, &perm));
}

TEST(a_child_of_fork_does_not_inherit_the_rights)
{
    uint32_t qid = make_queue(2);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        uint32_t perm;
        int bad = acltdtEnqueueData(qid, "x", 2, NULL, 0, 0, 0) != ACL_ERROR_RT_NO_PERMISSION ||
                  acltdtAttachQueue(qid, 0, &perm) != ACL_ERROR_RT_NO_PERMISSION;
        _exit(bad);
    }
    int status = 0;
    CHECK_EQ(pid, waitpid(pid, &status, 0));
    CHECK(WIFEXITED(status));
    CHECK_EQ(0, WEXITSTATUS(status));
    put_text(qid, "still mine", 0);
    get_text(qid, "still mine", 0);
    CHECK_OK(acltdtDestroyQueue(qid));
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--peer") == 0)
        return peer_main((uint32_t)strtoul(argv[2], NULL, 10), (uint32_t)strtoul(argv[3], NULL, 10),
                         atoi(argv[4]));
    RUN(attributes_routes_and_queries_are_plain_objects);
    RUN(messages_come_out_in_order_with_their_user_data);
    RUN(timeouts_answer_at_once_or_after_waiting);
    RUN(blocked_threads_go_on_when_the_other_side_acts);
    RUN(destroy_wakes_the_waiters_and_ends_the_qid);
    RUN(a_message_larger_than_the_buffer_stays_and_says_its_size);
    RUN(a_name_belongs_to_one_live_queue);
    RUN(routes_forward_to_every_destination);
    RUN(another_process_attaches_what_it_was_granted);
    RUN(a_child_of_fork_does_not_inherit_the_rights);
    return check_report("tdt_queue");
}
