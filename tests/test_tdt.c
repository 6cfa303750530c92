/*
 * tests/test_tdt.c - pins tensor data transfer (docs/SEMANTICS.md, Tensor
 * data transfer): data items and their getters, datasets, and channels
 * between threads: what a send copies, what a receive hands over, FIFO
 * order, capacity, the three kinds of timeout, stop waking blocked senders
 * and receivers, clean, handles of one name sharing a channel, device
 * memory, and bad input giving the documented code without a crash.
 *
 * A thread that must still be blocked is given a bounded chance to return
 * anyway (probe.h); nothing waits by sleeping.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static uint64_t now_ms(void)
{
    return probe_mono_ns() / 1000000u;
}

/* A dataset of one float TENSOR item over `values` (n of them), dims {1, n}. */
static acltdtDataset *float_dataset(float *values, int64_t n)
{
    int64_t dims[2] = {1, n};
    acltdtDataItem *item = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, values,
                                                (size_t)n * sizeof(float));
    CHECK(item != NULL);
    acltdtDataset *ds = acltdtCreateDataset();
    CHECK(ds != NULL);
    CHECK_OK(acltdtAddDataItem(ds, item));
    return ds;
}

/* Destroy a dataset the program filled, and its items. */
static void free_dataset(acltdtDataset *ds)
{
    for (size_t i = 0; i < acltdtGetDatasetSize(ds); i++)
        CHECK_OK(acltdtDestroyDataItem(acltdtGetDataItem(ds, i)));
    CHECK_OK(acltdtDestroyDataset(ds));
}

static float first_float(const acltdtDataset *ds)
{
    acltdtDataItem *it = acltdtGetDataItem(ds, 0);
    CHECK(it != NULL);
    const float *p = (const float *)acltdtGetDataAddrFromItem(it);
    CHECK(p != NULL);
    return p != NULL ? p[0] : -1.0f;
}

TEST(data_item_keeps_what_it_was_given)
{
    float data[6] = {1, 2, 3, 4, 5, 6};
    int64_t dims[2] = {2, 3};
    acltdtDataItem *it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, data, sizeof data);
    CHECK(it != NULL);
    dims[0] = 99; /* the item copied the dims */
    CHECK_EQ(ACL_TENSOR_DATA_TENSOR, acltdtGetTensorTypeFromItem(it));
    CHECK_EQ(ACL_FLOAT, acltdtGetDataTypeFromItem(it));
    CHECK(acltdtGetDataAddrFromItem(it) == (void *)data); /* ... but not the data */
    CHECK_EQ(sizeof data, acltdtGetDataSizeFromItem(it));
    CHECK_EQ(2u, acltdtGetDimNumFromItem(it));
    int64_t out[4] = {0, 0, 7, 7};
    CHECK_OK(acltdtGetDimsFromItem(it, out, 4));
    CHECK_EQ(2, (int)out[0]);
    CHECK_EQ(3, (int)out[1]);
    CHECK_EQ(7, (int)out[2]); /* beyond the item's dims: untouched */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetDimsFromItem(it, out, 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "less than");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetDimsFromItem(it, NULL, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetDimsFromItem(it, out, 0));
    size_t num = 9, id = 9;
    CHECK_OK(acltdtGetSliceInfoFromItem(it, &num, &id));
    CHECK_EQ(0u, num);
    CHECK_EQ(0u, id);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetSliceInfoFromItem(it, NULL, &id));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetSliceInfoFromItem(it, &num, NULL));
    CHECK_OK(acltdtDestroyDataItem(it));

    /* A scalar: no dims. */
    it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_INT32, data, 4);
    CHECK(it != NULL);
    CHECK_EQ(0u, acltdtGetDimNumFromItem(it));
    CHECK_OK(acltdtGetDimsFromItem(it, NULL, 0));
    CHECK_OK(acltdtDestroyDataItem(it));
}

TEST(marker_items_have_no_tensor)
{
    float data[2] = {1, 2};
    acltdtDataItem *eos = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_FLOAT, data, 8);
    CHECK(eos != NULL);
    CHECK_EQ(ACL_TENSOR_DATA_END_OF_SEQUENCE, acltdtGetTensorTypeFromItem(eos));
    CHECK_EQ(ACL_DT_UNDEFINED, acltdtGetDataTypeFromItem(eos));
    CHECK(acltdtGetDataAddrFromItem(eos) == NULL);
    CHECK_EQ(0u, acltdtGetDataSizeFromItem(eos));
    CHECK_OK(acltdtDestroyDataItem(eos));
    int64_t dims[1] = {2};
    CHECK(acltdtCreateDataItem(ACL_TENSOR_DATA_ABNORMAL, dims, 1, ACL_FLOAT, data, 8) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "dims must be NULL");
}

TEST(data_item_bad_input)
{
    int64_t dims[129] = {0};
    float data[1] = {0};
    CHECK(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 2, ACL_FLOAT, data, 4) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "dims is NULL");
    CHECK(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 0, ACL_FLOAT, data, 4) == NULL);
    CHECK(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 129, ACL_FLOAT, data, 4) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "more than 128");
    CHECK(acltdtCreateDataItem((acltdtTensorType)7, NULL, 0, ACL_FLOAT, data, 4) == NULL);
    acltdtDataItem *it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 128, ACL_FLOAT, data, 4);
    CHECK(it != NULL);
    CHECK_OK(acltdtDestroyDataItem(it));

    /* NULL items: the documented defaults, a message, no crash. */
    CHECK_EQ(ACL_TENSOR_DATA_UNDEFINED, acltdtGetTensorTypeFromItem(NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "dataItem is NULL");
    CHECK_EQ(ACL_DT_UNDEFINED, acltdtGetDataTypeFromItem(NULL));
    CHECK(acltdtGetDataAddrFromItem(NULL) == NULL);
    CHECK_EQ(0u, acltdtGetDataSizeFromItem(NULL));
    CHECK_EQ(0u, acltdtGetDimNumFromItem(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetDimsFromItem(NULL, dims, 1));
    size_t a, b;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtGetSliceInfoFromItem(NULL, &a, &b));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyDataItem(NULL));

    /* Another object passed as an item is refused, not read as one. */
    acltdtDataset *ds = acltdtCreateDataset();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyDataItem((acltdtDataItem *)(void *)ds));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a data item");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAddDataItem(ds, (acltdtDataItem *)(void *)ds));
    CHECK_OK(acltdtDestroyDataset(ds));
}

TEST(dataset_holds_the_programs_items_in_order)
{
    float a[1] = {1}, b[1] = {2};
    acltdtDataItem *ia = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_FLOAT, a, 4);
    acltdtDataItem *ib = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_FLOAT, b, 4);
    acltdtDataset *ds = acltdtCreateDataset();
    CHECK(ia != NULL && ib != NULL && ds != NULL);
    CHECK_EQ(0u, acltdtGetDatasetSize(ds));
    CHECK(acltdtGetDataItem(ds, 0) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "index 0");
    for (int i = 0; i < 5; i++) /* past the first growth */
        CHECK_OK(acltdtAddDataItem(ds, i % 2 ? ib : ia));
    CHECK_EQ(5u, acltdtGetDatasetSize(ds));
    CHECK(acltdtGetDataItem(ds, 0) == ia);
    CHECK(acltdtGetDataItem(ds, 1) == ib);
    CHECK(acltdtGetDataItem(ds, 4) == ia);
    CHECK(acltdtGetDataItem(ds, 5) == NULL);
    CHECK(acltdtGetDatasetName(ds) != NULL);
    CHECK_EQ(0, strcmp("", acltdtGetDatasetName(ds)));
    CHECK_OK(acltdtDestroyDataset(ds));
    /* The dataset freed none of the items. */
    CHECK_EQ(ACL_FLOAT, acltdtGetDataTypeFromItem(ia));
    CHECK_OK(acltdtDestroyDataItem(ia));
    CHECK_OK(acltdtDestroyDataItem(ib));

    CHECK(acltdtGetDatasetName(NULL) == NULL);
    CHECK_EQ(0u, acltdtGetDatasetSize(NULL));
    CHECK(acltdtGetDataItem(NULL, 0) == NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyDataset(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAddDataItem(NULL, NULL));
}

TEST(dataset_refuses_host_and_device_memory_mixed)
{
    void *dev;
    float host[4] = {0};
    CHECK_OK(aclrtMalloc(&dev, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    acltdtDataItem *d = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_FLOAT, dev, 16);
    acltdtDataItem *h = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_FLOAT, host, 16);
    acltdtDataItem *eos = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_FLOAT, NULL, 0);
    acltdtDataset *ds = acltdtCreateDataset();
    CHECK_OK(acltdtAddDataItem(ds, d));
    CHECK_OK(acltdtAddDataItem(ds, eos)); /* no data: goes with either */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAddDataItem(ds, h));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "all in host memory or all in device memory");
    CHECK_EQ(2u, acltdtGetDatasetSize(ds));
    CHECK_OK(acltdtDestroyDataset(ds));
    CHECK_OK(acltdtDestroyDataItem(d));
    CHECK_OK(acltdtDestroyDataItem(h));
    CHECK_OK(acltdtDestroyDataItem(eos));
    CHECK_OK(aclrtFree(dev));
}

TEST(send_copies_and_receive_hands_over)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_round_trip", 4);
    CHECK(ch != NULL);
    float values[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    acltdtDataset *sent = float_dataset(values, 4);
    acltdtDataItem *eos = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_DT_UNDEFINED, NULL, 0);
    CHECK_OK(acltdtAddDataItem(sent, eos));
    CHECK_OK(acltdtSendTensor(ch, sent, 0));
    values[0] = -1; /* the send copied the bytes */
    size_t n = 9;
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(1u, n);

    acltdtDataset *got = acltdtCreateDataset();
    CHECK_OK(acltdtReceiveTensor(ch, got, 0));
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(0u, n);
    CHECK_EQ(2u, acltdtGetDatasetSize(got));
    acltdtDataItem *t = acltdtGetDataItem(got, 0);
    CHECK_EQ(ACL_TENSOR_DATA_TENSOR, acltdtGetTensorTypeFromItem(t));
    CHECK_EQ(ACL_FLOAT, acltdtGetDataTypeFromItem(t));
    CHECK_EQ(16u, acltdtGetDataSizeFromItem(t));
    int64_t dims[2] = {0, 0};
    CHECK_OK(acltdtGetDimsFromItem(t, dims, 2));
    CHECK_EQ(1, (int)dims[0]);
    CHECK_EQ(4, (int)dims[1]);
    const float *p = (const float *)acltdtGetDataAddrFromItem(t);
    CHECK(p != NULL && p != values);
    CHECK(p != NULL && p[0] == 1.5f && p[3] == 4.5f);
    CHECK_EQ(0u, (unsigned)((uintptr_t)p % 64)); /* aligned for any element type */
    acltdtDataItem *e = acltdtGetDataItem(got, 1);
    CHECK_EQ(ACL_TENSOR_DATA_END_OF_SEQUENCE, acltdtGetTensorTypeFromItem(e));
    CHECK(acltdtGetDataAddrFromItem(e) == NULL);
    CHECK_EQ(0u, acltdtGetDimNumFromItem(e));

    /* The received items are the dataset's. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyDataItem(t));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "acltdtDestroyDataset frees it");
    CHECK_EQ(ACL_ERROR_FEATURE_UNSUPPORTED, acltdtAddDataItem(got, eos));
    /* ... and cannot be added elsewhere. */
    acltdtDataset *other = acltdtCreateDataset();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtAddDataItem(other, t));
    CHECK_OK(acltdtDestroyDataset(other));

    /* A dataset a receive filled can be received into again: the old items go. */
    values[0] = 7.5f;
    CHECK_OK(acltdtSendTensor(ch, sent, 0));
    CHECK_OK(acltdtReceiveTensor(ch, got, 0));
    CHECK_EQ(2u, acltdtGetDatasetSize(got));
    CHECK(first_float(got) == 7.5f);

    /* A dataset of the program's items cannot. */
    CHECK_OK(acltdtSendTensor(ch, sent, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtReceiveTensor(ch, sent, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "empty dataset");
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(1u, n); /* nothing was taken */

    CHECK_OK(acltdtDestroyDataset(got));
    free_dataset(sent);
    CHECK_OK(acltdtDestroyChannel(ch)); /* with a message still in it */
}

TEST(channel_is_first_in_first_out)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_fifo", 8);
    float v[8];
    for (int i = 0; i < 8; i++) {
        v[i] = (float)i;
        acltdtDataset *ds = float_dataset(&v[i], 1);
        CHECK_OK(acltdtSendTensor(ch, ds, -1));
        free_dataset(ds);
    }
    acltdtDataset *got = acltdtCreateDataset();
    for (int i = 0; i < 8; i++) {
        CHECK_OK(acltdtReceiveTensor(ch, got, -1));
        CHECK(first_float(got) == (float)i);
    }
    CHECK_OK(acltdtDestroyDataset(got));
    CHECK_OK(acltdtDestroyChannel(ch));
}

TEST(full_and_empty_return_at_once_or_after_the_timeout)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_capacity", 2);
    CHECK(ch != NULL);
    float v[1] = {1};
    acltdtDataset *ds = float_dataset(v, 1);
    acltdtDataset *got = acltdtCreateDataset();
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtReceiveTensor(ch, got, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is empty");
    uint64_t t0 = now_ms();
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtReceiveTensor(ch, got, 30));
    CHECK(now_ms() - t0 >= 30);
    CHECK_OK(acltdtSendTensor(ch, ds, 0));
    CHECK_OK(acltdtSendTensor(ch, ds, 0));
    CHECK_EQ(ACL_ERROR_RT_QUEUE_FULL, acltdtSendTensor(ch, ds, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is full");
    t0 = now_ms();
    CHECK_EQ(ACL_ERROR_RT_QUEUE_FULL, acltdtSendTensor(ch, ds, 30));
    CHECK(now_ms() - t0 >= 30);
    size_t n = 0;
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(2u, n);
    CHECK_EQ(0u, acltdtGetDatasetSize(got)); /* the failed receives left it alone */
    CHECK_OK(acltdtReceiveTensor(ch, got, 30));
    CHECK_OK(acltdtSendTensor(ch, ds, 30));
    CHECK_OK(acltdtDestroyDataset(got));
    free_dataset(ds);
    CHECK_OK(acltdtDestroyChannel(ch));
}

struct peer {
    acltdtChannelHandle *ch;
    acltdtDataset *ds;
    int32_t timeout;
    atomic_int done;
    aclError rc;
};

static void *send_thread(void *arg)
{
    struct peer *p = (struct peer *)arg;
    p->rc = acltdtSendTensor(p->ch, p->ds, p->timeout);
    atomic_store(&p->done, 1);
    return NULL;
}

static void *receive_thread(void *arg)
{
    struct peer *p = (struct peer *)arg;
    p->rc = acltdtReceiveTensor(p->ch, p->ds, p->timeout);
    atomic_store(&p->done, 1);
    return NULL;
}

TEST(a_blocked_receiver_gets_what_is_sent_later)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_block_recv", 2);
    struct peer p = {ch, acltdtCreateDataset(), -1, 0, -1};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, receive_thread, &p));
    chance(&p.done);
    CHECK_EQ(0, atomic_load(&p.done)); /* nothing to receive yet */
    float v[1] = {42};
    acltdtDataset *ds = float_dataset(v, 1);
    CHECK_OK(acltdtSendTensor(ch, ds, -1));
    pthread_join(t, NULL);
    CHECK_OK(p.rc);
    CHECK(first_float(p.ds) == 42.0f);
    CHECK_OK(acltdtDestroyDataset(p.ds));
    free_dataset(ds);
    CHECK_OK(acltdtDestroyChannel(ch));
}

TEST(a_timed_receiver_gets_what_is_sent_before_its_timeout)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_timed_recv", 2);
    struct peer p = {ch, acltdtCreateDataset(), 60000, 0, -1};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, receive_thread, &p));
    chance(&p.done);
    CHECK_EQ(0, atomic_load(&p.done));
    float v[1] = {8};
    acltdtDataset *ds = float_dataset(v, 1);
    uint64_t t0 = now_ms();
    CHECK_OK(acltdtSendTensor(ch, ds, -1));
    pthread_join(t, NULL);
    CHECK_OK(p.rc);
    CHECK(now_ms() - t0 < 30000); /* woken by the send, not by its timeout */
    CHECK(first_float(p.ds) == 8.0f);
    CHECK_OK(acltdtDestroyDataset(p.ds));
    free_dataset(ds);
    CHECK_OK(acltdtDestroyChannel(ch));
}

TEST(destroying_one_handle_leaves_the_others_waiting)
{
    acltdtChannelHandle *a = acltdtCreateChannelWithCapacity(0, "tdt_two_ends", 2);
    acltdtChannelHandle *b = acltdtCreateChannelWithCapacity(0, "tdt_two_ends", 2);
    struct peer p = {b, acltdtCreateDataset(), -1, 0, -1};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, receive_thread, &p));
    CHECK_OK(acltdtDestroyChannel(a));
    chance(&p.done);
    CHECK_EQ(0, atomic_load(&p.done)); /* b's receive goes on waiting */
    CHECK_OK(acltdtStopChannel(b));
    pthread_join(t, NULL);
    CHECK_EQ(ACL_ERROR_FAILURE, p.rc);
    CHECK_EQ(0u, acltdtGetDatasetSize(p.ds));
    CHECK_OK(acltdtDestroyDataset(p.ds));
    CHECK_OK(acltdtDestroyChannel(b));
}

TEST(a_blocked_sender_goes_on_when_room_is_made)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_block_send", 2);
    float v[3] = {1, 2, 3};
    acltdtDataset *d[3] = {float_dataset(&v[0], 1), float_dataset(&v[1], 1), float_dataset(&v[2], 1)};
    CHECK_OK(acltdtSendTensor(ch, d[0], 0));
    CHECK_OK(acltdtSendTensor(ch, d[1], 0));
    struct peer p = {ch, d[2], -1, 0, -1};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, send_thread, &p));
    chance(&p.done);
    CHECK_EQ(0, atomic_load(&p.done)); /* full: the sender waits */
    acltdtDataset *got = acltdtCreateDataset();
    CHECK_OK(acltdtReceiveTensor(ch, got, -1));
    CHECK(first_float(got) == 1.0f);
    pthread_join(t, NULL);
    CHECK_OK(p.rc);
    CHECK_OK(acltdtReceiveTensor(ch, got, 0));
    CHECK(first_float(got) == 2.0f);
    CHECK_OK(acltdtReceiveTensor(ch, got, 0));
    CHECK(first_float(got) == 3.0f);

    /* A timed sender, too, goes on when room is made before its timeout. */
    CHECK_OK(acltdtSendTensor(ch, d[0], 0));
    CHECK_OK(acltdtSendTensor(ch, d[1], 0));
    struct peer q = {ch, d[2], 60000, 0, -1};
    CHECK_EQ(0, pthread_create(&t, NULL, send_thread, &q));
    chance(&q.done);
    CHECK_EQ(0, atomic_load(&q.done));
    CHECK_OK(acltdtCleanChannel(ch)); /* clean makes room too */
    pthread_join(t, NULL);
    CHECK_OK(q.rc);
    size_t n = 0;
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(1u, n);

    CHECK_OK(acltdtDestroyDataset(got));
    for (int i = 0; i < 3; i++)
        free_dataset(d[i]);
    CHECK_OK(acltdtDestroyChannel(ch));
}

TEST(stop_wakes_blocked_senders_and_receivers)
{
    acltdtChannelHandle *empty = acltdtCreateChannelWithCapacity(0, "tdt_stop_empty", 2);
    acltdtChannelHandle *full = acltdtCreateChannelWithCapacity(0, "tdt_stop_full", 2);
    float v[1] = {1};
    acltdtDataset *ds = float_dataset(v, 1);
    CHECK_OK(acltdtSendTensor(full, ds, 0));
    CHECK_OK(acltdtSendTensor(full, ds, 0));
    struct peer r = {empty, acltdtCreateDataset(), -1, 0, -1};
    struct peer s = {full, ds, -1, 0, -1};
    pthread_t tr, ts;
    CHECK_EQ(0, pthread_create(&tr, NULL, receive_thread, &r));
    CHECK_EQ(0, pthread_create(&ts, NULL, send_thread, &s));
    chance(&r.done);
    chance(&s.done);
    CHECK_EQ(0, atomic_load(&r.done));
    CHECK_EQ(0, atomic_load(&s.done));
    CHECK_OK(acltdtStopChannel(empty));
    pthread_join(tr, NULL);
    CHECK_EQ(ACL_ERROR_FAILURE, r.rc);
    CHECK_EQ(0, atomic_load(&s.done)); /* the other channel is not stopped */
    CHECK_OK(acltdtStopChannel(full));
    pthread_join(ts, NULL);
    CHECK_EQ(ACL_ERROR_FAILURE, s.rc);

    /* Stopped for good: later calls fail at once, whatever their timeout; query, clean and destroy work. */
    CHECK_EQ(ACL_ERROR_FAILURE, acltdtReceiveTensor(empty, r.ds, -1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "stopped");
    CHECK_EQ(ACL_ERROR_FAILURE, acltdtSendTensor(empty, ds, -1));
    CHECK_EQ(ACL_ERROR_FAILURE, acltdtReceiveTensor(full, r.ds, 0)); /* even with data in it */
    size_t n = 0;
    CHECK_OK(acltdtQueryChannelSize(full, &n));
    CHECK_EQ(2u, n);
    CHECK_OK(acltdtStopChannel(full)); /* again: no-op */
    CHECK_OK(acltdtCleanChannel(full));
    CHECK_OK(acltdtDestroyChannel(empty));
    CHECK_OK(acltdtDestroyChannel(full));
    CHECK_OK(acltdtDestroyDataset(r.ds));
    free_dataset(ds);

    /* The name, opened again after its last handle went, is a new channel. */
    empty = acltdtCreateChannelWithCapacity(0, "tdt_stop_empty", 2);
    CHECK(empty != NULL);
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtReceiveTensor(empty, r.ds = acltdtCreateDataset(), 0));
    CHECK_OK(acltdtDestroyDataset(r.ds));
    CHECK_OK(acltdtDestroyChannel(empty));
}

TEST(handles_of_one_name_are_ends_of_one_channel)
{
    acltdtChannelHandle *host = acltdtCreateChannelWithCapacity(0, "tdt_shared", 4);
    acltdtChannelHandle *device = acltdtCreateChannelWithCapacity(0, "tdt_shared", 4);
    CHECK(host != NULL && device != NULL && host != device);
    CHECK(acltdtCreateChannelWithCapacity(0, "tdt_shared", 8) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "open with capacity 4");
    CHECK(acltdtCreateChannel(0, "tdt_shared") == NULL);
    float v[1] = {5};
    acltdtDataset *ds = float_dataset(v, 1);
    acltdtDataset *got = acltdtCreateDataset();
    CHECK_OK(acltdtSendTensor(host, ds, 0));
    CHECK_OK(acltdtReceiveTensor(device, got, 0));
    CHECK(first_float(got) == 5.0f);
    /* One end destroyed, the other still works. */
    CHECK_OK(acltdtSendTensor(device, ds, 0));
    CHECK_OK(acltdtDestroyChannel(device));
    CHECK_OK(acltdtReceiveTensor(host, got, 0));
    /* Other names, other devices (where there are), other channels. */
    acltdtChannelHandle *other = acltdtCreateChannelWithCapacity(0, "tdt_shared2", 4);
    CHECK_OK(acltdtSendTensor(other, ds, 0));
    CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtReceiveTensor(host, got, 0));
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    if (count > 1) {
        acltdtChannelHandle *dev1 = acltdtCreateChannelWithCapacity(1, "tdt_shared2", 8);
        CHECK(dev1 != NULL);
        CHECK_EQ(ACL_ERROR_RT_QUEUE_EMPTY, acltdtReceiveTensor(dev1, got, 0));
        CHECK_OK(acltdtDestroyChannel(dev1));
    }
    CHECK_OK(acltdtDestroyChannel(other));
    CHECK_OK(acltdtDestroyChannel(host));
    CHECK_OK(acltdtDestroyDataset(got));
    free_dataset(ds);
}

TEST(a_channel_without_capacity)
{
    acltdtChannelHandle *ch = acltdtCreateChannel(0, "tdt_plain");
    CHECK(ch != NULL);
    size_t n;
    CHECK_EQ(ACL_ERROR_FEATURE_UNSUPPORTED, acltdtQueryChannelSize(ch, &n));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "acltdtCreateChannelWithCapacity");
    CHECK_EQ(ACL_ERROR_FEATURE_UNSUPPORTED, acltdtCleanChannel(ch));
    float v[1] = {3};
    acltdtDataset *ds = float_dataset(v, 1);
    int sent = 0;
    while (acltdtSendTensor(ch, ds, 0) == ACL_SUCCESS && sent <= ACLRTX_TDT_DEFAULT_CAPACITY)
        sent++;
    CHECK_EQ(ACLRTX_TDT_DEFAULT_CAPACITY, sent);
    acltdtDataset *got = acltdtCreateDataset();
    CHECK_OK(acltdtReceiveTensor(ch, got, -1));
    CHECK(first_float(got) == 3.0f);
    CHECK_OK(acltdtDestroyDataset(got));
    free_dataset(ds);
    CHECK_OK(acltdtStopChannel(ch));
    CHECK_OK(acltdtDestroyChannel(ch));
}

TEST(device_memory_is_sent_by_value)
{
    void *dev;
    CHECK_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    dev_fill_pattern(dev, 256, 11);
    int64_t dims[1] = {64};
    acltdtDataItem *it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_INT32, dev, 256);
    acltdtDataset *ds = acltdtCreateDataset();
    CHECK_OK(acltdtAddDataItem(ds, it));
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_device", 2);
    CHECK_OK(acltdtSendTensor(ch, ds, -1));
    acltdtDataset *got = acltdtCreateDataset();
    CHECK_OK(acltdtReceiveTensor(ch, got, -1));
    acltdtDataItem *r = acltdtGetDataItem(got, 0);
    CHECK_EQ(256u, acltdtGetDataSizeFromItem(r));
    CHECK_EQ(ACL_INT32, acltdtGetDataTypeFromItem(r));
    void *p = acltdtGetDataAddrFromItem(r);
    CHECK(p != NULL && p != dev);
    CHECK(p != NULL && has_pattern(p, 256, 11)); /* host memory the program reads */
    CHECK_OK(acltdtDestroyDataset(got));
    CHECK_OK(acltdtDestroyChannel(ch));
    CHECK_OK(acltdtDestroyDataset(ds));
    CHECK_OK(acltdtDestroyDataItem(it));
    CHECK_OK(aclrtFree(dev));
}

TEST(channel_bad_input)
{
    CHECK(acltdtCreateChannel(0, NULL) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "name is NULL");
    char long_name[200];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK(acltdtCreateChannelWithCapacity(0, long_name, 4) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "longer than 127");
    long_name[127] = '\0';
    acltdtChannelHandle *ok = acltdtCreateChannelWithCapacity(0, long_name, 4);
    CHECK(ok != NULL);
    CHECK_OK(acltdtDestroyChannel(ok));
    CHECK(acltdtCreateChannelWithCapacity(0, "tdt_bad", 1) == NULL);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "capacity 1");
    CHECK(acltdtCreateChannelWithCapacity(0, "tdt_bad", 8193) == NULL);
    acltdtChannelHandle *big = acltdtCreateChannelWithCapacity(0, "tdt_big", 8192);
    CHECK(big != NULL);
    CHECK_OK(acltdtDestroyChannel(big));
    CHECK(acltdtCreateChannel(4096, "tdt_bad") == NULL);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK(acltdtCreateChannel(UINT32_MAX, "tdt_bad") == NULL);

    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_bad_calls", 2);
    float v[1] = {1};
    acltdtDataset *ds = float_dataset(v, 1);
    acltdtDataset *empty = acltdtCreateDataset();
    size_t n;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor(NULL, ds, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "handle is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor(ch, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor(ch, ds, -2));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "timeout -2");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor(ch, empty, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no items");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor((acltdtChannelHandle *)(void *)ds, ds, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a channel");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtReceiveTensor(NULL, empty, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtReceiveTensor(ch, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtReceiveTensor(ch, empty, -5));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtQueryChannelSize(NULL, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtQueryChannelSize(ch, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtCleanChannel(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtStopChannel(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtDestroyChannel(NULL));

    /* Items a send does not take, and a tensor without its bytes. */
    acltdtDataset *slice = acltdtCreateDataset();
    acltdtDataItem *s = acltdtCreateDataItem(ACL_TENSOR_DATA_SLICE_TENSOR, NULL, 0, ACL_FLOAT, NULL, 0);
    CHECK_OK(acltdtAddDataItem(slice, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor(ch, slice, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "tdtType 3");
    acltdtDataset *nodata = acltdtCreateDataset();
    acltdtDataItem *nd = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_FLOAT, NULL, 8);
    CHECK_OK(acltdtAddDataItem(nodata, nd));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, acltdtSendTensor(ch, nodata, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "at NULL");
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(0u, n); /* nothing went in */

    free_dataset(slice);
    free_dataset(nodata);
    free_dataset(ds);
    CHECK_OK(acltdtDestroyDataset(empty));
    CHECK_OK(acltdtDestroyChannel(ch));
}

/* Producers and consumers through one small channel: every dataset arrives once, each producer's in order. */
#define PRODUCERS 4
#define CONSUMERS 3
#define PER_PRODUCER 300

struct worker {
    acltdtChannelHandle *ch;
    int id;
    int received[PRODUCERS]; /* consumer: how many of each producer's it got */
    int last[PRODUCERS];     /* consumer: the last sequence number seen of each producer */
    int out_of_order;
    aclError rc;
};

static void *producer(void *arg)
{
    struct worker *w = (struct worker *)arg;
    for (int i = 0; i < PER_PRODUCER && w->rc == ACL_SUCCESS; i++) {
        int32_t msg[2] = {w->id, i};
        acltdtDataItem *it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_INT32, msg, sizeof msg);
        acltdtDataset *ds = acltdtCreateDataset();
        acltdtAddDataItem(ds, it);
        w->rc = acltdtSendTensor(w->ch, ds, i % 2 ? -1 : 60000);
        acltdtDestroyDataset(ds);
        acltdtDestroyDataItem(it);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    struct worker *w = (struct worker *)arg;
    acltdtDataset *ds = acltdtCreateDataset();
    for (int p = 0; p < PRODUCERS; p++)
        w->last[p] = -1;
    for (;;) {
        aclError rc = acltdtReceiveTensor(w->ch, ds, -1);
        if (rc != ACL_SUCCESS) {
            w->rc = rc; /* stopped: the end */
            break;
        }
        acltdtDataItem *it = acltdtGetDataItem(ds, 0);
        if (acltdtGetTensorTypeFromItem(it) == ACL_TENSOR_DATA_END_OF_SEQUENCE)
            break;
        const int32_t *msg = (const int32_t *)acltdtGetDataAddrFromItem(it);
        if (msg[0] >= 0 && msg[0] < PRODUCERS) {
            if (msg[1] <= w->last[msg[0]])
                w->out_of_order++;
            w->last[msg[0]] = msg[1];
            w->received[msg[0]]++;
        }
    }
    acltdtDestroyDataset(ds);
    return NULL;
}

TEST(producers_and_consumers_through_one_channel)
{
    acltdtChannelHandle *ch = acltdtCreateChannelWithCapacity(0, "tdt_mpmc", 4);
    struct worker w[PRODUCERS + CONSUMERS];
    pthread_t t[PRODUCERS + CONSUMERS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++) {
        w[i].id = i;
        /* Each its own handle of the one channel, as a device side opens it by name. */
        w[i].ch = acltdtCreateChannelWithCapacity(0, "tdt_mpmc", 4);
        CHECK(w[i].ch != NULL);
        CHECK_EQ(0, pthread_create(&t[i], NULL, i < PRODUCERS ? producer : consumer, &w[i]));
    }
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_join(t[i], NULL);
        CHECK_OK(w[i].rc);
    }
    /* One end-of-sequence per consumer. */
    acltdtDataItem *eos = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_DT_UNDEFINED, NULL, 0);
    acltdtDataset *end = acltdtCreateDataset();
    CHECK_OK(acltdtAddDataItem(end, eos));
    for (int i = 0; i < CONSUMERS; i++)
        CHECK_OK(acltdtSendTensor(ch, end, -1));
    int total[PRODUCERS] = {0};
    for (int i = PRODUCERS; i < PRODUCERS + CONSUMERS; i++) {
        pthread_join(t[i], NULL);
        CHECK_OK(w[i].rc);
        CHECK_EQ(0, w[i].out_of_order);
        for (int p = 0; p < PRODUCERS; p++)
            total[p] += w[i].received[p];
    }
    for (int p = 0; p < PRODUCERS; p++)
        CHECK_EQ(PER_PRODUCER, total[p]);
    size_t n = 9;
    CHECK_OK(acltdtQueryChannelSize(ch, &n));
    CHECK_EQ(0u, n);
    for (int i = 0; i < PRODUCERS + CONSUMERS; i++)
        CHECK_OK(acltdtDestroyChannel(w[i].ch));
    CHECK_OK(acltdtDestroyChannel(ch));
    free_dataset(end);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(data_item_keeps_what_it_was_given);
    RUN(marker_items_have_no_tensor);
    RUN(data_item_bad_input);
    RUN(dataset_holds_the_programs_items_in_order);
    RUN(dataset_refuses_host_and_device_memory_mixed);
    RUN(send_copies_and_receive_hands_over);
    RUN(channel_is_first_in_first_out);
    RUN(full_and_empty_return_at_once_or_after_the_timeout);
    RUN(a_blocked_receiver_gets_what_is_sent_later);
    RUN(a_timed_receiver_gets_what_is_sent_before_its_timeout);
    RUN(destroying_one_handle_leaves_the_others_waiting);
    RUN(a_blocked_sender_goes_on_when_room_is_made);
    RUN(stop_wakes_blocked_senders_and_receivers);
    RUN(handles_of_one_name_are_ends_of_one_channel);
    RUN(a_channel_without_capacity);
    RUN(device_memory_is_sent_by_value);
    RUN(channel_bad_input);
    RUN(producers_and_consumers_through_one_channel);
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("tdt");
}
