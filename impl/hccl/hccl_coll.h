/*
 * impl/hccl/hccl_coll.h - the operations: collectives, sends and receives,
 * the barrier. Each checks its arguments (HCCL's codes: HCCL_E_PTR for a
 * NULL pointer, HCCL_E_PARA for a bad value, HCCL_E_NOT_SUPPORT for a
 * reduction of a type that has none), copies the arrays it was given, and
 * submits (hccl_submit.h). A rejected call submits nothing.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_COLL_H
#define ACLRT_IMPL_HCCL_HCCL_COLL_H

#include "../core/base.h"
#include "../core/thread.h"
#include "hccl_abi.h"
#include "hccl_comm.h"
#include "hccl_op.h"
#include "hccl_reduce.h"
#include "hccl_submit.h"

#include <string.h>

/* The checks every operation shares; *out is the communicator. */
static HcclResult aclrt_hccl_check(HcclComm comm, aclrtStream stream, struct aclrt_hccl_comm **out)
{
    HcclResult r = aclrt_hccl_comm_get(comm, out);
    if (r != HCCL_SUCCESS)
        return r;
    if (stream == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "stream is NULL (HCCL operations run on a stream)");
    if (atomic_load_explicit(&(*out)->suspended, memory_order_acquire))
        return aclrt_hccl_fail(HCCL_E_SUSPENDING, "the communicator is suspended (HcclCommSuspend)");
    int broken = atomic_load_explicit(&(*out)->async_error, memory_order_acquire);
    if (broken != HCCL_SUCCESS)
        return aclrt_hccl_fail((HcclResult)broken, "the communicator failed earlier: %s", (*out)->failure);
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_check_type(HcclDataType type, bool reduce, HcclReduceOp op)
{
    if (aclrt_hccl_type_size(type) == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "data type %d is no HcclDataType", (int)type);
    if (reduce) {
        if (!aclrt_hccl_op_valid(op))
            return aclrt_hccl_fail(HCCL_E_PARA, "reduction %d is no HcclReduceOp", (int)op);
        if (!aclrt_hccl_type_reducible(type))
            return aclrt_hccl_fail(HCCL_E_NOT_SUPPORT, "%s elements have no reduction", aclrt_hccl_type_name(type));
    }
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_check_buf(const void *p, uint64_t count, const char *name)
{
    if (p == NULL && count > 0)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", name);
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_check_root(struct aclrt_hccl_comm *c, uint32_t root, const char *name)
{
    if (root >= c->nranks)
        return aclrt_hccl_fail(HCCL_E_PARA, "%s %u is out of range: the communicator has %u ranks", name, root,
                               c->nranks);
    return HCCL_SUCCESS;
}

#define ACLRT_HCCL_TRY(expr)                                                                         \
    do {                                                                                             \
        HcclResult r_ = (expr);                                                                      \
        if (r_ != HCCL_SUCCESS)                                                                      \
            return r_;                                                                               \
    } while (0)

/* A new operation of kind `kind` with room for `words` of arrays, submitted by the caller. */
static HcclResult aclrt_hccl_new(struct aclrt_hccl_comm *c, enum aclrt_hccl_kind kind, size_t words,
                                 struct aclrt_hccl_op **out)
{
    struct aclrt_hccl_op *op = aclrt_hccl_op_new(c, aclrt_tls.api, words);
    *out = op; /* set on every path: gcc -O2 warns of the callers' use otherwise */
    if (op == NULL)
        return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
    op->a.kind = kind;
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                   HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, true, op));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, count, "sendBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, count, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_ALLREDUCE, 0, &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = count, o->a.type = dataType, o->a.op = op;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                   aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, false, HCCL_REDUCE_SUM));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(buf, count, "buf"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_root(c, root, "root"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_BROADCAST, 0, &o));
    o->a.send = buf, o->a.recv = buf, o->a.count = count, o->a.type = dataType, o->a.root = root;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                                uint32_t root, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, true, op));
    ACLRT_HCCL_TRY(aclrt_hccl_check_root(c, root, "root"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, count, "sendBuf"));
    if (c->rank == root)
        ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, count, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_REDUCE, 0, &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = count, o->a.type = dataType, o->a.op = op, o->a.root = root;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                       HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, true, op));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, recvCount, "sendBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, recvCount, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_REDUCE_SCATTER, 0, &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = recvCount, o->a.type = dataType, o->a.op = op;
    return aclrt_hccl_launch(o, stream);
}

/* Copies an array of nranks uint64_t counts; HCCL_E_PTR if it is NULL. */
static HcclResult aclrt_hccl_copy_counts(uint64_t *dst, const void *src, uint32_t n, const char *name)
{
    if (src == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL", name);
    memcpy(dst, src, n * sizeof *dst);
    return HCCL_SUCCESS;
}

/*
 * The V forms' operation: the counts and displacements copied (nranks each),
 * this rank's entry equal to its own count, and the buffer that holds every
 * rank's block (`whole`) present for their sum. A rejected call frees it.
 */
static HcclResult aclrt_hccl_new_v(struct aclrt_hccl_comm *c, enum aclrt_hccl_kind kind, const void *counts,
                                   const void *displs, const char *counts_name, const char *displs_name,
                                   uint64_t own, const char *own_name, const void *whole, const char *whole_name,
                                   struct aclrt_hccl_op **out)
{
    struct aclrt_hccl_op *o = NULL;
    uint32_t n = c->nranks;
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, kind, 2 * (size_t)n, &o));
    HcclResult r = aclrt_hccl_copy_counts(o->storage, counts, n, counts_name);
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_copy_counts(o->storage + n, displs, n, displs_name);
    if (r == HCCL_SUCCESS && o->storage[c->rank] != own)
        r = aclrt_hccl_fail(HCCL_E_PARA, "%s %llu differs from %s[%u] %llu", own_name, (unsigned long long)own,
                            counts_name, c->rank, (unsigned long long)o->storage[c->rank]);
    uint64_t total = 0;
    for (uint32_t i = 0; r == HCCL_SUCCESS && i < n; i++)
        total += o->storage[i];
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_check_buf(whole, total, whole_name);
    if (r != HCCL_SUCCESS) {
        free(o);
        return r;
    }
    o->a.counts = o->storage, o->a.displs = o->storage + n;
    *out = o;
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                                        uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                        aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, true, op));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, recvCount, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new_v(c, ACLRT_HCCL_REDUCE_SCATTERV, sendCounts, sendDispls, "sendCounts", "sendDispls",
                                    recvCount, "recvCount", sendBuf, "sendBuf", &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = recvCount, o->a.type = dataType, o->a.op = op;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                 uint32_t root, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, false, HCCL_REDUCE_SUM));
    ACLRT_HCCL_TRY(aclrt_hccl_check_root(c, root, "root"));
    if (c->rank == root)
        ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, recvCount, "sendBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, recvCount, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_SCATTER, 0, &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = recvCount, o->a.type = dataType, o->a.root = root;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                   HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, false, HCCL_REDUCE_SUM));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, sendCount, "sendBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, sendCount, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_ALLGATHER, 0, &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = sendCount, o->a.type = dataType;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                    const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(dataType, false, HCCL_REDUCE_SUM));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, sendCount, "sendBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new_v(c, ACLRT_HCCL_ALLGATHERV, recvCounts, recvDispls, "recvCounts", "recvDispls",
                                    sendCount, "sendCount", recvBuf, "recvBuf", &o));
    o->a.send = sendBuf, o->a.recv = recvBuf, o->a.count = sendCount, o->a.type = dataType;
    return aclrt_hccl_launch(o, stream);
}

static HcclResult aclrt_hccl_check_pair_types(HcclDataType sendType, HcclDataType recvType)
{
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(sendType, false, HCCL_REDUCE_SUM));
    ACLRT_HCCL_TRY(aclrt_hccl_check_type(recvType, false, HCCL_REDUCE_SUM));
    if (aclrt_hccl_type_size(sendType) != aclrt_hccl_type_size(recvType))
        return aclrt_hccl_fail(HCCL_E_PARA, "sendType %s and recvType %s differ in size", aclrt_hccl_type_name(sendType),
                               aclrt_hccl_type_name(recvType));
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                  const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                  aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_pair_types(sendType, recvType));
    if (sendCount != recvCount)
        return aclrt_hccl_fail(HCCL_E_PARA, "sendCount %llu differs from recvCount %llu", (unsigned long long)sendCount,
                               (unsigned long long)recvCount);
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(sendBuf, sendCount, "sendBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_check_buf(recvBuf, recvCount, "recvBuf"));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_ALLTOALL, 0, &o));
    o->a.send = (void *)(uintptr_t)sendBuf, o->a.recv = (void *)(uintptr_t)recvBuf;
    o->a.count = sendCount, o->a.type = sendType, o->a.recv_type = recvType;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                   HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                   const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_pair_types(sendType, recvType));
    uint32_t n = c->nranks;
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_ALLTOALLV, 4 * (size_t)n, &o));
    HcclResult r = aclrt_hccl_copy_counts(o->storage, sendCounts, n, "sendCounts");
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_copy_counts(o->storage + n, sdispls, n, "sdispls");
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_copy_counts(o->storage + 2 * n, recvCounts, n, "recvCounts");
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_copy_counts(o->storage + 3 * n, rdispls, n, "rdispls");
    uint64_t s = 0, q = 0;
    for (uint32_t i = 0; r == HCCL_SUCCESS && i < n; i++)
        s += o->storage[i], q += o->storage[2 * n + i];
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_check_buf(sendBuf, s, "sendBuf");
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_check_buf(recvBuf, q, "recvBuf");
    if (r != HCCL_SUCCESS) {
        free(o);
        return r;
    }
    o->a.send = (void *)(uintptr_t)sendBuf, o->a.recv = (void *)(uintptr_t)recvBuf;
    o->a.type = sendType, o->a.recv_type = recvType, o->a.v = o->storage;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                    const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_check_pair_types(sendType, recvType));
    uint32_t n = c->nranks;
    if (sendCountMatrix == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "sendCountMatrix is NULL");
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_ALLTOALLVC, (size_t)n * n, &o));
    memcpy(o->storage, sendCountMatrix, (size_t)n * n * sizeof(uint64_t));
    uint64_t s = 0, q = 0;
    for (uint32_t j = 0; j < n; j++)
        s += o->storage[(size_t)c->rank * n + j], q += o->storage[(size_t)j * n + c->rank];
    HcclResult r = aclrt_hccl_check_buf(sendBuf, s, "sendBuf");
    if (r == HCCL_SUCCESS)
        r = aclrt_hccl_check_buf(recvBuf, q, "recvBuf");
    if (r != HCCL_SUCCESS) {
        free(o);
        return r;
    }
    o->a.send = (void *)(uintptr_t)sendBuf, o->a.recv = (void *)(uintptr_t)recvBuf;
    o->a.type = sendType, o->a.recv_type = recvType, o->a.v = o->storage;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_BARRIER, 0, &o));
    o->a.type = HCCL_DATA_TYPE_INT8;
    return aclrt_hccl_launch(o, stream);
}

/* Sends and receives: a batch of `n` items, copied. */
static HcclResult aclrt_hccl_batch(const HcclSendRecvItem *items, uint32_t n, HcclComm comm, aclrtStream stream)
{
    struct aclrt_hccl_comm *c;
    struct aclrt_hccl_op *o = NULL;
    ACLRT_HCCL_TRY(aclrt_hccl_check(comm, stream, &c));
    if (items == NULL && n > 0)
        return aclrt_hccl_fail(HCCL_E_PTR, "sendRecvInfo is NULL");
    for (uint32_t i = 0; i < n; i++) {
        const HcclSendRecvItem *it = &items[i];
        if (it->sendRecvType != HCCL_SEND && it->sendRecvType != HCCL_RECV)
            return aclrt_hccl_fail(HCCL_E_PARA, "item %u: sendRecvType %d is neither HCCL_SEND nor HCCL_RECV", i,
                                   (int)it->sendRecvType);
        ACLRT_HCCL_TRY(aclrt_hccl_check_type(it->dataType, false, HCCL_REDUCE_SUM));
        ACLRT_HCCL_TRY(aclrt_hccl_check_buf(it->buf, it->count, "an item's buf"));
        ACLRT_HCCL_TRY(aclrt_hccl_check_root(c, it->remoteRank, "remoteRank"));
    }
    size_t words = (n * sizeof(HcclSendRecvItem) + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    ACLRT_HCCL_TRY(aclrt_hccl_new(c, ACLRT_HCCL_BATCH, words, &o));
    if (n > 0)
        memcpy(o->storage, items, n * sizeof *items);
    o->a.items = (const HcclSendRecvItem *)(void *)o->storage;
    o->a.nitems = n;
    o->a.type = HCCL_DATA_TYPE_INT8;
    return aclrt_hccl_launch(o, stream);
}

ACLRT_API HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                              HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    HcclSendRecvItem it = {.sendRecvType = HCCL_SEND, .buf = sendBuf, .count = count, .dataType = dataType,
                           .remoteRank = destRank};
    return aclrt_hccl_batch(&it, 1, comm, stream);
}

ACLRT_API HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                              HcclComm comm, aclrtStream stream)
{
    ACLRT_ENTER();
    HcclSendRecvItem it = {.sendRecvType = HCCL_RECV, .buf = recvBuf, .count = count, .dataType = dataType,
                           .remoteRank = srcRank};
    return aclrt_hccl_batch(&it, 1, comm, stream);
}

ACLRT_API HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                       aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_hccl_batch(sendRecvInfo, itemNum, comm, stream);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_COLL_H */
