/*
 * impl/hccl/hccl_capture.h - HCCL operations in captured models, and the
 * hand-off of an operation to whoever moves its data.
 *
 * A model replays tasks that run to completion on the replaying thread
 * (task/capture.h), so an operation on a capturing stream is recorded as a
 * host function holding a template of the call: each replay makes a fresh
 * operation from it, hands it on, and waits for its end, as a device's
 * model would wait for its communication task. A replay that fails leaves
 * the communicator's asynchronous error (HcclGetCommAsyncError) and a line
 * on stderr; the host function itself cannot fail its stream. Templates
 * live as long as the process (a model may outlive its communicator: a
 * replay after HcclCommDestroy fails that way, without touching freed
 * memory).
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_CAPTURE_H
#define ACLRT_IMPL_HCCL_HCCL_CAPTURE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../exec/callback.h"
#include "../model/model_capture.h"
#include "hccl_abi.h"
#include "hccl_comm.h"
#include "hccl_engine.h"
#include "hccl_local.h"
#include "hccl_op.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hands a started operation to the team (in-process) or the engine thread (MPI). */
ACLRT_INTERNAL void aclrt_hccl_dispatch(struct aclrt_hccl_op *op)
{
    if (op->comm->team == NULL)
        aclrt_hccl_engine_submit(op);
    else if (op->a.kind == ACLRT_HCCL_BATCH)
        aclrt_hccl_local_batch(op);
    else
        aclrt_hccl_local_collective(op);
}

/* A template's communicator, and whether it still lives; templates of every communicator ever. */
struct aclrt_hccl_template {
    struct aclrt_hccl_op *op;           /* the call; op->comm names the communicator */
    struct aclrt_hccl_template *next;
};
static pthread_mutex_t aclrt_hccl_templates_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aclrt_hccl_template *aclrt_hccl_templates;

/* The pointer `p` into a's storage, moved to b's. */
static const void *aclrt_hccl_rebase(const void *p, const struct aclrt_hccl_op *a, struct aclrt_hccl_op *b)
{
    return p == NULL ? NULL : (const char *)b->storage + ((const char *)p - (const char *)a->storage);
}

/*
 * A replay's operation, made from template t and counted in flight on its
 * communicator (which HcclCommDestroy then waits for); NULL when the
 * communicator is gone (said on stderr) or there is no memory (its error).
 */
ACLRT_INTERNAL struct aclrt_hccl_op *aclrt_hccl_template_op(struct aclrt_hccl_template *t)
{
    pthread_mutex_lock(&aclrt_hccl_templates_lock);
    struct aclrt_hccl_comm *c = t->op->comm; /* NULL once the communicator is destroyed */
    if (c != NULL)
        atomic_fetch_add_explicit(&c->inflight, 1, memory_order_relaxed); /* holds off HcclCommDestroy */
    pthread_mutex_unlock(&aclrt_hccl_templates_lock);
    if (c == NULL) {
        fprintf(stderr, "[HCCL] %s replayed by a model after its communicator was destroyed: nothing done\n",
                t->op->api);
        return NULL;
    }
    struct aclrt_hccl_op *op = aclrt_hccl_op_new(c, t->op->api, t->op->words);
    if (op == NULL) {
        atomic_fetch_sub_explicit(&c->inflight, 1, memory_order_release);
        aclrt_hccl_comm_set_error(c, HCCL_E_MEMORY, "out of memory in a model's replay");
        return NULL;
    }
    op->a = t->op->a;
    memcpy(op->storage, t->op->storage, t->op->words * sizeof(uint64_t));
    op->a.counts = (const uint64_t *)aclrt_hccl_rebase(t->op->a.counts, t->op, op);
    op->a.displs = (const uint64_t *)aclrt_hccl_rebase(t->op->a.displs, t->op, op);
    op->a.v = (const uint64_t *)aclrt_hccl_rebase(t->op->a.v, t->op, op);
    op->a.items = (const HcclSendRecvItem *)aclrt_hccl_rebase(t->op->a.items, t->op, op);
    return op;
}

/* A template of op (which it owns), kept once the model holds it (aclrt_hccl_template_keep); NULL: no memory. */
ACLRT_INTERNAL struct aclrt_hccl_template *aclrt_hccl_template_new(struct aclrt_hccl_op *op)
{
    struct aclrt_hccl_template *t = (struct aclrt_hccl_template *)calloc(1, sizeof *t);
    if (t != NULL)
        t->op = op;
    return t;
}

/* The model holds t: kept for the process (a model may outlive its communicator: aclrt_hccl_capture_forget). */
ACLRT_INTERNAL void aclrt_hccl_template_keep(struct aclrt_hccl_template *t)
{
    pthread_mutex_lock(&aclrt_hccl_templates_lock);
    t->next = aclrt_hccl_templates;
    aclrt_hccl_templates = t;
    pthread_mutex_unlock(&aclrt_hccl_templates_lock);
}

/* A replay of a captured operation (a host function of the model). */
static void aclrt_hccl_replay(void *arg)
{
    struct aclrt_hccl_op *op = aclrt_hccl_template_op((struct aclrt_hccl_template *)arg);
    if (op == NULL)
        return;
    struct aclrt_hccl_comm *c = op->comm;
    struct aclrt_hccl_waiter w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    op->waiter = &w;
    op->deadline_ns = aclrt_now_ns() + c->exec_timeout_ns;
    aclrt_hccl_dispatch(op);
    /* Paired with aclrt_hccl_op_finish's signal, under the waiter's lock. */
    pthread_mutex_lock(&w.lock);
    while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.cond);
}

/* Is `stream` capturing a model? (No for a bad stream: the launch reports what is wrong with it.) */
ACLRT_INTERNAL bool aclrt_hccl_capturing(aclrtStream stream)
{
    const char *api = aclrt_tls.api;
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclError rc = aclmdlRICaptureGetInfo(stream, &status, NULL);
    aclrt_tls.api = api;
    if (rc != ACL_SUCCESS)
        (void)aclrt_errmsg_take();
    return rc == ACL_SUCCESS && status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
}

/*
 * If `stream` is capturing: records op as a host function of the model and
 * keeps it as the template (*done true). Otherwise *done false: submit it.
 */
ACLRT_INTERNAL HcclResult aclrt_hccl_capture(struct aclrt_hccl_op *op, aclrtStream stream, bool *done)
{
    *done = aclrt_hccl_capturing(stream);
    if (!*done)
        return HCCL_SUCCESS;
    const char *api = aclrt_tls.api;
    struct aclrt_hccl_template *t = aclrt_hccl_template_new(op);
    if (t == NULL) {
        free(op);
        return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
    }
    aclError rc = aclrtLaunchHostFunc(stream, aclrt_hccl_replay, t);
    aclrt_tls.api = api;
    if (rc != ACL_SUCCESS) {
        free(t);
        free(op);
        return aclrt_hccl_fail(HCCL_E_RUNTIME, "%s: the capturing stream refused the operation (ACL error %d)", api,
                               (int)rc);
    }
    aclrt_hccl_template_keep(t);
    return HCCL_SUCCESS;
}

/* Communicator c is going: the templates that name it name nothing any more. */
ACLRT_INTERNAL void aclrt_hccl_capture_forget(struct aclrt_hccl_comm *c)
{
    pthread_mutex_lock(&aclrt_hccl_templates_lock);
    for (struct aclrt_hccl_template *t = aclrt_hccl_templates; t != NULL; t = t->next)
        if (t->op->comm == c)
            t->op->comm = NULL;
    pthread_mutex_unlock(&aclrt_hccl_templates_lock);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_CAPTURE_H */
