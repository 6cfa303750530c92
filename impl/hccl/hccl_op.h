/*
 * impl/hccl/hccl_op.h - one rank's operation in flight: made by the API call,
 * started when its stream reaches it, finished exactly once.
 *
 * An operation is an external task of the stream (exec/external.h): the
 * call submits it and returns; when the stream reaches it, its start hands
 * it to the in-process team (hccl_local.h) or to the engine thread
 * (hccl_engine.h), neither of which blocks the thread that runs the stream;
 * whoever completes it (the last rank to arrive, the engine, or the timeout
 * watch) calls aclrt_hccl_op_finish, which completes the task, so the
 * stream goes on (or takes the failure like a failed task: exception
 * callbacks, the stream's error, its failure mode).
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_OP_H
#define ACLRT_IMPL_HCCL_HCCL_OP_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../exec/external.h"
#include "hccl_abi.h"
#include "hccl_comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct aclrt_hccl_op {
    struct aclrt_hccl_args a;   /* the arrays point into `storage` */
    struct aclrt_hccl_comm *comm;
    const char *api;            /* the call that made it, for messages */
    aclrtxExternalToken token;  /* set at start */
    uint64_t deadline_ns;       /* set at start: the exec timeout from then */
    _Atomic uint32_t remaining; /* in-process batch: items not matched yet */
    _Atomic int result;         /* in-process batch: the first failure */
    void *req;                  /* the engine's request while MPI runs it */
    struct aclrt_hccl_op *next; /* the engine's queue and in-flight list */
    void *scratch;              /* freed with the operation (an in-process batch's items) */
    struct aclrt_hccl_waiter *waiter; /* a replay waits here instead of completing a task */
    size_t words;               /* of storage */
    uint64_t storage[];         /* copies of the call's arrays */
};

/* A model's replay runs an operation to its end on the replaying thread (hccl_capture.h). */
struct aclrt_hccl_waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    HcclResult result;
};

/* An operation with room for `words` uint64_t of arrays; NULL when out of memory. */
ACLRT_INTERNAL struct aclrt_hccl_op *aclrt_hccl_op_new(struct aclrt_hccl_comm *c, const char *api, size_t words)
{
    struct aclrt_hccl_op *op = (struct aclrt_hccl_op *)calloc(1, sizeof *op + words * sizeof(uint64_t));
    if (op != NULL) {
        op->comm = c;
        op->api = api;
        op->words = words;
    }
    return op;
}

/* The ACL code a failed operation leaves on its stream. */
static aclError aclrt_hccl_task_code(HcclResult r)
{
    switch (r) {
    case HCCL_E_TIMEOUT: return ACL_ERROR_RT_TASK_TIMEOUT;
    case HCCL_E_REMOTE: return ACL_ERROR_RT_SUSPECT_REMOTE_ERROR;
    case HCCL_E_NETWORK: return ACL_ERROR_RT_LINK_ERROR;
    default: return ACL_ERROR_RT_COMM_OP_RETRY_FAIL;
    }
}

/*
 * The end of an operation: its task completes (or fails with `r`, which
 * becomes the communicator's asynchronous error, said once on stderr as the
 * device's log would), and the operation is freed. The communicator's count
 * of operations in flight drops before the task completes: a rank that
 * synchronizes its stream and destroys the communicator finds it at zero.
 */
ACLRT_INTERNAL void aclrt_hccl_op_finish(struct aclrt_hccl_op *op, HcclResult r, const char *why)
{
    struct aclrt_hccl_comm *c = op->comm;
    aclError code = ACL_SUCCESS;
    if (r != HCCL_SUCCESS) {
        code = aclrt_hccl_task_code(r);
        aclrt_hccl_comm_failed(c, op->api, r, why);
    }
    aclrtxExternalToken token = op->token;
    struct aclrt_hccl_waiter *w = op->waiter;
    free(op->scratch);
    free(op);
    if (w != NULL) {
        atomic_fetch_sub_explicit(&c->inflight, 1, memory_order_release);
        pthread_mutex_lock(&w->lock);
        w->done = true;
        w->result = r;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
        return;
    }
    /* Release: pairs with the acquire load in HcclCommDestroy; nothing touches c after this. */
    atomic_fetch_sub_explicit(&c->inflight, 1, memory_order_release);
    aclrtxCompleteExternalTask(token, code);
}

/*
 * The end of an operation a backend's engine issued (r: how the issue went)
 * or that its stream dropped: freed, out of the count in flight; the code
 * its task takes.
 */
ACLRT_INTERNAL aclError aclrt_hccl_op_settle(struct aclrt_hccl_op *op, HcclResult r, const char *why)
{
    struct aclrt_hccl_comm *c = op->comm;
    if (r != HCCL_SUCCESS)
        aclrt_hccl_comm_failed(c, op->api, r, why);
    free(op->scratch);
    free(op);
    /* Release: pairs with the acquire load in HcclCommDestroy; nothing touches c after this. */
    atomic_fetch_sub_explicit(&c->inflight, 1, memory_order_release);
    return r == HCCL_SUCCESS ? ACL_SUCCESS : aclrt_hccl_task_code(r);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_OP_H */
