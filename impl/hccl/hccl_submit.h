/*
 * impl/hccl/hccl_submit.h - an operation becomes a task of its stream, and
 * starts when the stream reaches it; HcclGroupStart/End hold operations back
 * until the group ends.
 *
 * The task is an external task (aclrtxLaunchExternalTask): it holds its
 * stream, as any task does, until the operation finishes, so events,
 * stream waits and synchronizes order it like any other task. Its start
 * runs on the thread that runs the stream and never blocks: it hands the
 * operation to the team (in-process) or to the engine thread (MPI).
 *
 * A group (per thread, nested) collects the calls made inside it; at the
 * outermost HcclGroupEnd they are submitted in call order, the sends and
 * receives of one communicator and stream merged into one batch, so that a
 * rank may post a send and a receive that depend on each other without
 * blocking its stream on the first.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_SUBMIT_H
#define ACLRT_IMPL_HCCL_HCCL_SUBMIT_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../context/context.h"
#include "../exec/external.h"
#include "hccl_abi.h"
#include "hccl_backend.h"
#include "hccl_capture.h"
#include "hccl_comm.h"
#include "hccl_engine.h"
#include "hccl_local.h"
#include "hccl_op.h"

#include <stdlib.h>
#include <string.h>

ACLRT_INTERNAL void aclrt_hccl_start(aclrtxExternalToken token, void *user)
{
    struct aclrt_hccl_op *op = (struct aclrt_hccl_op *)user;
    op->token = token;
    op->deadline_ns = aclrt_now_ns() + op->comm->exec_timeout_ns;
    aclrt_hccl_dispatch(op);
}

/* Puts op on its stream; frees it when that fails. */
static HcclResult aclrt_hccl_launch_now(struct aclrt_hccl_op *op, aclrtStream stream)
{
    struct aclrt_hccl_comm *c = op->comm;
    if (c->coll != NULL)
        return aclrt_hccl_coll_launch(op, stream); /* the backend's engine issues it (hccl_backend.h) */
    bool captured = false;
    HcclResult r = aclrt_hccl_capture(op, stream, &captured);
    if (captured || r != HCCL_SUCCESS)
        return r;
    atomic_fetch_add_explicit(&c->inflight, 1, memory_order_relaxed);
    aclError rc = aclrt_external_launch(stream, aclrt_hccl_start, op);
    if (rc == ACL_SUCCESS)
        return HCCL_SUCCESS;
    atomic_fetch_sub_explicit(&c->inflight, 1, memory_order_relaxed);
    const char *api = op->api;
    free(op->scratch);
    free(op);
    return aclrt_hccl_fail(HCCL_E_RUNTIME, "%s: the stream refused the operation (ACL error %d)", api, (int)rc);
}

/* A call held by a group, with the context that was current at the call (its stream's). */
struct aclrt_hccl_held {
    struct aclrt_hccl_op *op;
    aclrtStream stream;
    aclrtContext context;
};

struct aclrt_hccl_group {
    uint32_t depth;
    uint32_t n, cap;
    struct aclrt_hccl_held *held;
};

static _Thread_local struct aclrt_hccl_group aclrt_hccl_grp;

/* Submits op now, or holds it while the calling thread is in a group. */
ACLRT_INTERNAL HcclResult aclrt_hccl_launch(struct aclrt_hccl_op *op, aclrtStream stream)
{
    struct aclrt_hccl_group *g = &aclrt_hccl_grp;
    if (g->depth == 0)
        return aclrt_hccl_launch_now(op, stream);
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? 2 * g->cap : 16;
        struct aclrt_hccl_held *h = (struct aclrt_hccl_held *)realloc(g->held, cap * sizeof *h);
        if (h == NULL) {
            free(op);
            return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory for the group");
        }
        g->held = h, g->cap = cap;
    }
    const char *api = aclrt_tls.api;
    aclrtContext context = NULL;
    if (aclrtGetCurrentContext(&context) != ACL_SUCCESS)
        (void)aclrt_errmsg_take(); /* no context: the launch at HcclGroupEnd says what is wrong */
    aclrt_tls.api = api;
    g->held[g->n++] = (struct aclrt_hccl_held){.op = op, .stream = stream, .context = context};
    return HCCL_SUCCESS;
}

/* Merges the held batches from index i on of one communicator and stream into one; returns it. */
static struct aclrt_hccl_op *aclrt_hccl_group_merge(struct aclrt_hccl_group *g, uint32_t i)
{
    struct aclrt_hccl_comm *comm = g->held[i].op->comm;
    aclrtStream stream = g->held[i].stream;
    uint32_t items = 0;
    for (uint32_t k = i; k < g->n; k++) {
        struct aclrt_hccl_op *op = g->held[k].op;
        if (op != NULL && op->a.kind == ACLRT_HCCL_BATCH && op->comm == comm && g->held[k].stream == stream)
            items += op->a.nitems;
    }
    size_t words = (items * sizeof(HcclSendRecvItem) + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    struct aclrt_hccl_op *m = aclrt_hccl_op_new(comm, "HcclGroupEnd", words);
    if (m == NULL)
        return NULL;
    m->a.kind = ACLRT_HCCL_BATCH;
    HcclSendRecvItem *dst = (HcclSendRecvItem *)(void *)m->storage;
    m->a.items = dst;
    for (uint32_t k = i; k < g->n; k++) {
        struct aclrt_hccl_op *op = g->held[k].op;
        if (op != NULL && op->a.kind == ACLRT_HCCL_BATCH && op->comm == comm && g->held[k].stream == stream) {
            memcpy(dst + m->a.nitems, op->a.items, op->a.nitems * sizeof *dst);
            m->a.nitems += op->a.nitems;
            free(op);
            g->held[k].op = NULL;
        }
    }
    return m;
}

ACLRT_API HcclResult HcclGroupStart(void)
{
    ACLRT_ENTER();
    aclrt_hccl_grp.depth++;
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclGroupEnd(void)
{
    ACLRT_ENTER();
    struct aclrt_hccl_group *g = &aclrt_hccl_grp;
    if (g->depth == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "HcclGroupEnd without HcclGroupStart");
    if (--g->depth > 0)
        return HCCL_SUCCESS;
    /*
     * One thread may drive several devices in a group (a rank per device):
     * each call is submitted in the context that was current when it was
     * made, and the caller's is current again at the end.
     */
    aclrtContext mine = NULL, current = NULL;
    if (aclrtGetCurrentContext(&mine) != ACL_SUCCESS)
        (void)aclrt_errmsg_take();
    ACLRT_ENTER();
    current = mine;
    HcclResult first = HCCL_SUCCESS;
    for (uint32_t i = 0; i < g->n; i++) {
        struct aclrt_hccl_held h = g->held[i];
        if (h.op == NULL)
            continue;
        if (h.context != NULL && h.context != current) {
            (void)aclrtSetCurrentContext(h.context);
            ACLRT_ENTER();
            current = h.context;
        }
        struct aclrt_hccl_op *op = h.op;
        if (op->a.kind == ACLRT_HCCL_BATCH) {
            op = aclrt_hccl_group_merge(g, i);
            if (op == NULL) {
                first = first != HCCL_SUCCESS ? first : aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory for the group");
                continue;
            }
        }
        g->held[i].op = NULL;
        HcclResult r = aclrt_hccl_launch_now(op, h.stream);
        if (first == HCCL_SUCCESS)
            first = r;
    }
    if (mine != NULL && current != mine) {
        (void)aclrtSetCurrentContext(mine);
        ACLRT_ENTER();
    }
    /* Each call is one rank's part: a refused one does not hold back the others; the first failure is returned. */
    for (uint32_t i = 0; i < g->n; i++)
        free(g->held[i].op);
    free(g->held);
    g->held = NULL, g->n = 0, g->cap = 0;
    return first;
}

ACLRT_API HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    ACLRT_ENTER();
    if (isGroupEnabled == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "isGroupEnabled is NULL");
    *isGroupEnabled = aclrt_hccl_grp.depth > 0;
    return HCCL_SUCCESS;
}

#endif /* ACLRT_IMPL_HCCL_HCCL_SUBMIT_H */
