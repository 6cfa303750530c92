/*
 * impl/hccl/hccl_destroy.h - HcclCommDestroy: the handle dies at once (later
 * calls with it are HCCL_E_PARA); the communicator waits for its operations
 * in flight (they finish, or fail at HCCL_EXEC_TIMEOUT), leaves its team,
 * frees its MPI communicator or the backend engine's (aborted if it
 * failed), and drops the memory it was told of. State
 * callbacks run before and after (hccl_config.h).
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_DESTROY_H
#define ACLRT_IMPL_HCCL_HCCL_DESTROY_H

#include "../core/base.h"
#include "../core/thread.h"
#include "hccl_backend.h"
#include "hccl_capture.h"
#include "hccl_coll_watch.h"
#include "hccl_comm.h"
#include "hccl_config.h"
#include "hccl_engine.h"
#include "hccl_local.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

ACLRT_API HcclResult HcclCommDestroy(HcclComm comm)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (!aclrt_hccl_live_remove(c))
        return aclrt_hccl_fail(HCCL_E_PARA, "comm %p was destroyed already", comm);
    HcclResult pre = aclrt_hccl_state_callbacks(c, HCCL_COMM_STATE_PHASE_DESTROY_PRE);
    aclrt_hccl_capture_forget(c); /* no replay starts on c from here; those running hold `inflight` */
    /* Acquire: pairs with the release in aclrt_hccl_op_finish; operations end or time out. */
    while (atomic_load_explicit(&c->inflight, memory_order_acquire) != 0)
        sched_yield();
    if (c->team != NULL)
        aclrt_hccl_team_put(c->team);
    if (c->mpi != NULL)
        aclrt_hccl_engine_free_comm(c->mpi);
    if (c->coll != NULL) { /* after its operations were issued: the engine finishes them first (hccl_backend.h) */
        aclrt_hccl_watch_forget(c);
        /* A failed communicator's work may never finish (a peer is gone): aborted, not waited for. */
        if (atomic_load_explicit(&c->async_error, memory_order_acquire) != HCCL_SUCCESS)
            aclrt_rt.backend->coll->comm_abort(c->coll);
        aclrt_rt.backend->coll->comm_free(c->coll);
    }
    aclrt_hccl_engine_use(false);
    while (c->regions != NULL) {
        struct aclrt_hccl_region *g = c->regions;
        c->regions = g->next;
        free(g);
    }
    pthread_mutex_destroy(&c->regions_lock);
    free(c->world_ranks);
    free(c);
    /* The callbacks of the last phase get the handle as a name: it names nothing any more. */
    HcclResult post = aclrt_hccl_state_callbacks((struct aclrt_hccl_comm *)comm, HCCL_COMM_STATE_PHASE_DESTROY_POST);
    return pre != HCCL_SUCCESS ? pre : post;
}

#endif /* ACLRT_IMPL_HCCL_HCCL_DESTROY_H */
