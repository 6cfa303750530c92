/*
 * impl/hccl/hccl_coll_watch.h - HCCL_EXEC_TIMEOUT for the operations a
 * backend's engine issued (hccl_backend.h): NCCL waits on the GPU for its
 * peers for ever, so a rank that never calls would hold its peers' streams.
 *
 * Each issued operation is watched (its stream, its task's number, the
 * submitting thread, its deadline) until its stream gets past it. The
 * engine thread's tick (hccl_engine.h, every ACLRT_HCCL_TICK_NS while
 * communicators exist) looks at the list: an operation past its deadline
 * fails its task (ACL_ERROR_RT_TASK_TIMEOUT: the exception callbacks, the
 * stream's error), the communicator takes HCCL_E_TIMEOUT as its
 * asynchronous error, and the engine aborts the communicator (ncclCommAbort:
 * its kernels on the GPU return, so the stream goes on); every other
 * operation of it in flight fails with it. HcclCommDestroy takes a
 * communicator's records out first.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_COLL_WATCH_H
#define ACLRT_IMPL_HCCL_HCCL_COLL_WATCH_H

#include "../core/base.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../exec/exec.h"
#include "../../backends/backend.h"
#include "hccl_comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct aclrt_hccl_watched {
    struct aclrt_hccl_comm *comm;
    struct aclrt_stream *stream; /* slot pointer: valid for the process */
    uint64_t number;             /* the operation's task */
    uint32_t tid;                /* the thread that submitted it (exception info) */
    const char *api;             /* the call that made it (a string constant) */
    uint64_t deadline_ns;
    struct aclrt_hccl_watched *next;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_hccl_watched *head;
} aclrt_hccl_watch = {.lock = PTHREAD_MUTEX_INITIALIZER};

/*
 * Watch task `number` of s, an operation of c issued now (false: out of
 * memory, not watched). A model's step (`step`: the task is the model's,
 * which goes on after the step) replaces the record of the model's
 * previous step on c: the replay waits for each step before the next, so
 * that one is done.
 */
ACLRT_INTERNAL bool aclrt_hccl_watch_add(struct aclrt_hccl_comm *c, struct aclrt_stream *s, uint64_t number,
                                         uint32_t tid, const char *api, uint64_t deadline_ns, bool step)
{
    struct aclrt_hccl_watched *w = (struct aclrt_hccl_watched *)malloc(sizeof *w);
    if (w == NULL)
        return false;
    *w = (struct aclrt_hccl_watched){c, s, number, tid, api, deadline_ns, NULL};
    pthread_mutex_lock(&aclrt_hccl_watch.lock);
    for (struct aclrt_hccl_watched **p = &aclrt_hccl_watch.head; step && *p != NULL; p = &(*p)->next)
        if ((*p)->comm == c && (*p)->stream == s && (*p)->number == number) {
            struct aclrt_hccl_watched *old = *p;
            *p = old->next;
            free(old);
            break;
        }
    w->next = aclrt_hccl_watch.head;
    aclrt_hccl_watch.head = w;
    pthread_mutex_unlock(&aclrt_hccl_watch.lock);
    return true;
}

/* Forget c's operations (HcclCommDestroy, once none is left to issue). */
ACLRT_INTERNAL void aclrt_hccl_watch_forget(const struct aclrt_hccl_comm *c)
{
    pthread_mutex_lock(&aclrt_hccl_watch.lock);
    for (struct aclrt_hccl_watched **p = &aclrt_hccl_watch.head; *p != NULL;) {
        struct aclrt_hccl_watched *w = *p;
        if (w->comm == c) {
            *p = w->next;
            free(w);
        } else {
            p = &w->next;
        }
    }
    pthread_mutex_unlock(&aclrt_hccl_watch.lock);
}

/* The tick: operations done are forgotten; one past its deadline fails, with every operation of its communicator. */
ACLRT_INTERNAL void aclrt_hccl_watch_expire(uint64_t now)
{
    pthread_mutex_lock(&aclrt_hccl_watch.lock);
    for (struct aclrt_hccl_watched **p = &aclrt_hccl_watch.head; *p != NULL;) {
        struct aclrt_hccl_watched *w = *p;
        struct aclrt_hccl_comm *c = w->comm;
        if (aclrt_stream_reached(w->stream, w->number)) {
            *p = w->next;
            free(w);
            continue;
        }
        bool broken = atomic_load_explicit(&c->async_error, memory_order_acquire) == HCCL_E_TIMEOUT;
        if (now < w->deadline_ns && !broken) {
            p = &w->next;
            continue;
        }
        if (!broken) {
            char why[200];
            snprintf(why, sizeof why, "not every rank reached the operation within HCCL_EXEC_TIMEOUT (a peer is gone or "
                                      "did not call it): the %s communicator was aborted", aclrt_rt.backend->coll->name);
            aclrt_hccl_comm_failed(c, w->api, HCCL_E_TIMEOUT, why);
        }
        aclrt_stream_fail(w->stream, w->tid, w->number, ACL_ERROR_RT_TASK_TIMEOUT);
        aclrt_rt.backend->coll->comm_abort(c->coll); /* its GPU waits let go: the stream goes on (once; idempotent) */
        *p = w->next;
        free(w);
    }
    pthread_mutex_unlock(&aclrt_hccl_watch.lock);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_COLL_WATCH_H */
