/*
 * tests/test_mbuf.c - pins the shared buffers (docs/SEMANTICS.md, Shared
 * buffers (mbufs)): the data area and its valid length, the user data area
 * of 96 bytes, reference copies that share a data area and free it with
 * the last head, chains (append, count, index, freeing through the head),
 * the acltdt* names of the same calls, and bad input: NULL, sizes, offsets,
 * freed and garbage handles.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <pthread.h>
#include <stdint.h>

TEST(a_buffer_has_a_data_area_and_a_valid_length)
{
    aclrtMbuf b = NULL;
    CHECK_OK(aclrtAllocBuf(&b, 1000));
    CHECK(b != NULL);
    void *data = NULL;
    size_t size = 0, len = 99;
    CHECK_OK(aclrtGetBufData(b, &data, &size));
    CHECK(data != NULL);
    CHECK_EQ((size_t)1000, size);
    CHECK_OK(aclrtGetBufDataLen(b, &len));
    CHECK_EQ((size_t)0, len); /* nothing valid until the user says so */
    memset(data, 0x5A, size);
    CHECK_OK(aclrtSetBufDataLen(b, 600));
    CHECK_OK(aclrtGetBufDataLen(b, &len));
    CHECK_EQ((size_t)600, len);
    CHECK_OK(aclrtSetBufDataLen(b, 1000));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetBufDataLen(b, 1001));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "larger than the data area");
    CHECK_OK(aclrtGetBufDataLen(b, &len));
    CHECK_EQ((size_t)1000, len);
    CHECK_OK(aclrtFreeBuf(b));
}

TEST(user_data_is_96_bytes_at_an_offset)
{
    aclrtMbuf b;
    CHECK_OK(aclrtAllocBuf(&b, 16));
    unsigned char in[96], out[96];
    for (int i = 0; i < 96; i++)
        in[i] = (unsigned char)(i + 1);
    CHECK_OK(aclrtSetBufUserData(b, in, 96, 0));
    memset(out, 0, sizeof out);
    CHECK_OK(aclrtGetBufUserData(b, out, 96, 0));
    CHECK_EQ(0, memcmp(in, out, 96));
    CHECK_OK(aclrtSetBufUserData(b, "abcd", 4, 92)); /* the last four bytes */
    CHECK_OK(aclrtGetBufUserData(b, out, 8, 88));
    CHECK_EQ(0, memcmp(out, in + 88, 4));
    CHECK_EQ(0, memcmp(out + 4, "abcd", 4));
    CHECK_OK(aclrtGetBufUserData(b, out, 0, 96)); /* an empty range at the end */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(b, in, 5, 92));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "user data area of 96 bytes");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(b, out, 97, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(b, out, 1, 96));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(b, out, 1, SIZE_MAX));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(b, NULL, 4, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(b, NULL, 4, 0));
    CHECK_OK(aclrtFreeBuf(b));
}

TEST(a_reference_copy_shares_the_data_and_frees_it_with_the_last_head)
{
    aclrtMbuf a, c;
    CHECK_OK(aclrtAllocBuf(&a, 64));
    void *da, *dc;
    size_t sa, sc, len;
    CHECK_OK(aclrtGetBufData(a, &da, &sa));
    memcpy(da, "shared", 7);
    CHECK_OK(aclrtSetBufDataLen(a, 7));
    CHECK_OK(aclrtSetBufUserData(a, "u", 1, 0));
    CHECK_OK(aclrtCopyBufRef(a, &c));
    CHECK(c != a);
    CHECK_OK(aclrtGetBufData(c, &dc, &sc));
    CHECK(dc == da);
    CHECK_EQ(sa, sc);
    CHECK_OK(aclrtGetBufDataLen(c, &len));
    CHECK_EQ((size_t)7, len);
    char u = 0;
    CHECK_OK(aclrtGetBufUserData(c, &u, 1, 0));
    CHECK_EQ('u', u);
    /* The heads are separate: lengths and user data apart, bytes in common. */
    CHECK_OK(aclrtSetBufDataLen(c, 3));
    CHECK_OK(aclrtGetBufDataLen(a, &len));
    CHECK_EQ((size_t)7, len);
    CHECK_OK(aclrtFreeBuf(a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufDataLen(a, &len)); /* the head is gone */
    CHECK_OK(aclrtGetBufData(c, &dc, &sc)); /* the data area is not */
    CHECK_EQ(0, memcmp(dc, "shared", 7));
    CHECK_OK(aclrtFreeBuf(c));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf(c));
}

TEST(chains_count_index_and_free_through_their_head)
{
    aclrtMbuf h, m1, m2, x;
    CHECK_OK(aclrtAllocBuf(&h, 8));
    CHECK_OK(aclrtAllocBuf(&m1, 16));
    CHECK_OK(aclrtAllocBuf(&m2, 32));
    uint32_t n = 0;
    CHECK_OK(aclrtGetBufChainNum(h, &n));
    CHECK_EQ(1u, n);
    CHECK_OK(aclrtAppendBufChain(h, m1));
    CHECK_OK(aclrtAppendBufChain(h, m2));
    CHECK_OK(aclrtGetBufChainNum(h, &n));
    CHECK_EQ(3u, n);
    CHECK_OK(aclrtGetBufFromChain(h, 0, &x));
    CHECK(x == h);
    CHECK_OK(aclrtGetBufFromChain(h, 1, &x));
    CHECK(x == m1);
    CHECK_OK(aclrtGetBufFromChain(h, 2, &x));
    CHECK(x == m2);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufFromChain(h, 3, &x));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "index 3");
    /* A member is no head: it cannot be freed, counted or appended to, nor appended again. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf(m1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "free the chain's head");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufChainNum(m1, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(m1, m2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(h, m2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(h, h));
    /* A head with members is not appended to another chain. */
    aclrtMbuf other;
    CHECK_OK(aclrtAllocBuf(&other, 8));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(other, h));
    CHECK_OK(aclrtFreeBuf(other));
    /* A member's data is its own. */
    void *d;
    size_t s;
    CHECK_OK(aclrtGetBufData(m2, &d, &s));
    CHECK_EQ((size_t)32, s);
    CHECK_OK(aclrtFreeBuf(h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(m1, &d, &s)); /* freed with the head */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(m2, &d, &s));
}

TEST(the_acltdt_names_are_the_same_buffers)
{
    acltdtBuf b, c, x;
    CHECK_OK(acltdtAllocBuf(128, ACL_TDT_NORMAL_MEM, &b));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAllocBuf(128, ACL_TDT_DVPP_MEM, &c));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "ACL_TDT_NORMAL_MEM only");
    void *d;
    size_t s, len;
    CHECK_OK(acltdtGetBufData(b, &d, &s));
    CHECK_EQ((size_t)128, s);
    CHECK_OK(acltdtSetBufDataLen(b, 10));
    CHECK_OK(aclrtGetBufDataLen(b, &len)); /* one buffer, either name */
    CHECK_EQ((size_t)10, len);
    CHECK_OK(acltdtGetBufDataLen(b, &len));
    CHECK_EQ((size_t)10, len);
    CHECK_OK(acltdtSetBufUserData(b, "xy", 2, 10));
    char u[2];
    CHECK_OK(acltdtGetBufUserData(b, u, 2, 10));
    CHECK_EQ(0, memcmp(u, "xy", 2));
    CHECK_OK(acltdtCopyBufRef(b, &c));
    aclrtMbuf m;
    CHECK_OK(aclrtAllocBuf(&m, 4));
    CHECK_OK(acltdtAppendBufChain(b, m));
    uint32_t n;
    CHECK_OK(acltdtGetBufChainNum(b, &n));
    CHECK_EQ(2u, n);
    CHECK_OK(acltdtGetBufFromChain(b, 1, &x));
    CHECK(x == m);
    CHECK_OK(acltdtFreeBuf(b));
    CHECK_OK(acltdtFreeBuf(c));
}

TEST(bad_input_gets_invalid_param_and_no_crash)
{
    aclrtMbuf b;
    for (int i = 0; i < 8; i++) { /* freed buffers leave marks in the set of live ones */
        CHECK_OK(aclrtAllocBuf(&b, 8));
        CHECK_OK(aclrtFreeBuf(b));
    }
    void *d;
    size_t s;
    uint32_t n;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf(NULL, 8));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf(&b, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf(&b, (size_t)5 << 30));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "out of range");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf(NULL));
    static char garbage[256];
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf(garbage));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not a live buffer");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(garbage, &d, &s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufData((aclrtMbuf)(uintptr_t)1, &d, &s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf((aclrtMbuf)(uintptr_t)UINTPTR_MAX));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufChainNum(garbage, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCopyBufRef(garbage, &b));
    CHECK_OK(aclrtAllocBuf(&b, 8));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(b, NULL, &s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(b, &d, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufDataLen(b, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCopyBufRef(b, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufChainNum(b, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetBufFromChain(b, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(b, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(NULL, b));
    CHECK_OK(aclrtFreeBuf(b));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetBufDataLen(b, 1)); /* freed */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf(b));
}

/* Threads allocate, copy and free their own buffers at once: the set stays whole. */
static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++) {
        aclrtMbuf b, c;
        if (aclrtAllocBuf(&b, 32) != ACL_SUCCESS || aclrtCopyBufRef(b, &c) != ACL_SUCCESS)
            return (void *)1;
        if (aclrtFreeBuf(b) != ACL_SUCCESS || aclrtFreeBuf(c) != ACL_SUCCESS)
            return (void *)1;
    }
    return NULL;
}

TEST(threads_use_buffers_at_once)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(0, pthread_create(&t[i], NULL, churn, NULL));
    for (int i = 0; i < 4; i++) {
        void *r;
        CHECK_EQ(0, pthread_join(t[i], &r));
        CHECK(r == NULL);
    }
}

int main(void)
{
    RUN(a_buffer_has_a_data_area_and_a_valid_length);
    RUN(user_data_is_96_bytes_at_an_offset);
    RUN(a_reference_copy_shares_the_data_and_frees_it_with_the_last_head);
    RUN(chains_count_index_and_free_through_their_head);
    RUN(the_acltdt_names_are_the_same_buffers);
    RUN(bad_input_gets_invalid_param_and_no_crash);
    RUN(threads_use_buffers_at_once);
    return check_report("mbuf");
}
