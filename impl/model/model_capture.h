/*
 * impl/model/model_capture.h - capturing a model from a stream
 * (aclmdlRICaptureBegin, aclmdlRICaptureGetInfo, aclmdlRICaptureEnd,
 * aclmdlRICaptureThreadExchangeMode).
 *
 * aclmdlRICaptureBegin makes the model (model.h) and starts the stream's
 * capture (stream_capture.h); the calls on the stream, and on the streams
 * that join its capture, are recorded instead of run. aclmdlRICaptureEnd
 * ends the capture and moves the recorded tasks into the model's body,
 * after the branches of its conditional tasks (cond.h) have ended theirs;
 * a capture that cannot end (another thread in a strict mode, an
 * invalidating call, a stream not joined back, a branch still capturing)
 * destroys its model.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_CAPTURE_H
#define ACLRT_IMPL_MODEL_MODEL_CAPTURE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "cond.h"
#include "model.h"
#include "model_args.h"
#include "model_destroy.h"

ACLRT_INLINE bool aclrt_capture_mode_valid(aclmdlRICaptureMode mode)
{
    return (unsigned)mode <= (unsigned)ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

/*
 * Start a capture into m on s (the capture lock taken here), unless s
 * captures already (ACL_ERROR_RT_STREAM_CAPTURED) or is bound to a model
 * being built (ACL_ERROR_RT_STREAM_MODEL): the caller says which.
 */
ACLRT_INTERNAL aclError aclrt_model_capture_start(struct aclrt_stream *s, aclmdlRICaptureMode mode,
                                                  struct aclrt_model *m)
{
    aclError rc = ACL_SUCCESS;
    aclrt_capture_lock();
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE)
        rc = ACL_ERROR_RT_STREAM_CAPTURED;
    else if (aclrt_stream_bound(s) != NULL)
        rc = ACL_ERROR_RT_STREAM_MODEL;
    else
        aclrt_capture_start(s, (uint32_t)mode, m);
    aclrt_capture_unlock();
    return rc;
}

ACLRT_API aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    ACLRT_ENTER();
    if (!aclrt_capture_mode_valid(mode))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %d is not an aclmdlRICaptureMode", (int)mode);
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream cannot be captured)", true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_stream_capturing(s))
        return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURED, "stream %p is already capturing a model", stream);
    void *handle;
    struct aclrt_model *m = aclrt_model_new(ACLRT_MODEL_CAPTURING, s->ctx, s, NULL, &handle);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");
    if ((rc = aclrt_model_capture_start(s, mode, m)) != ACL_SUCCESS) {
        if (aclrt_model_lock_alive(m, handle))
            aclrt_model_retire(m);
        if (rc == ACL_ERROR_RT_STREAM_MODEL)
            return aclrt_fail(rc,
                              "stream %p is bound to a model (aclmdlRIBindStream) and cannot be captured; "
                              "aclmdlRIUnbindStream first",
                              stream);
        return aclrt_fail(rc, "stream %p is already capturing a model", stream);
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    ACLRT_ENTER();
    if (status == NULL && modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status and modelRI (outputs) are both NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    uint32_t st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    struct aclrt_model *m = NULL;
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && aclrt_capture_origin(s)->capture.update == NULL) {
        struct aclrt_stream *o = aclrt_capture_origin(s);
        st = o->capture.status;
        m = o->capture.model;
    }
    aclrt_capture_unlock();
    if (status != NULL)
        *status = (aclmdlRICaptureStatus)st;
    if (modelRI != NULL)
        *modelRI = m != NULL ? aclrt_slot_handle(&aclrt_models, &m->hdr) : NULL;
    return ACL_SUCCESS;
}

/*
 * The capture of m ended into body b (m locked): each conditional task's
 * branches must have ended their captures; their bodies go to the
 * condition (a reference each), and the conditions of its tasks that
 * start with a default, and the branches' such, to b->starts. Lock order: a
 * model, then its branches.
 */
static aclError aclrt_model_resolve_conds(struct aclrt_model *m, struct aclrt_model_body *b)
{
    uint32_t nstarts = 0;
    for (uint32_t i = 0; i < m->nconds; i++) {
        struct aclrt_cond *c = m->conds[i];
        if (!c->used)
            continue; /* no task reads it: nothing to start */
        nstarts += c->flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT;
        if (c->bodies == NULL && (c->bodies = (struct aclrt_model_body **)calloc(c->size, sizeof *c->bodies)) == NULL)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a conditional task's branches");
        for (uint32_t k = 0; k < c->size; k++) {
            struct aclrt_model *sub = aclrt_model_lock_handle(c->subs[k]);
            bool ready = false;
            if (sub != NULL) {
                if ((ready = sub->state == ACLRT_MODEL_READY) && c->bodies[k] == NULL) {
                    c->bodies[k] = sub->body;
                    atomic_fetch_add_explicit(&sub->body->refs, 1, memory_order_relaxed); /* the branch's keeps it */
                    nstarts += sub->body->nstarts;
                }
                aclrt_model_unlock(sub);
            }
            if (!ready)
                return aclrt_fail(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING,
                                  "branch %u of a conditional task has not ended its capture "
                                  "(aclmdlRICaptureToModelRIBegin .. aclmdlRICaptureEnd); the capture is ended "
                                  "and its model destroyed",
                                  (unsigned)k);
        }
    }
    if (nstarts == 0)
        return ACL_SUCCESS;
    if ((b->starts = (struct aclrt_cond **)malloc((size_t)nstarts * sizeof *b->starts)) == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model's conditions");
    for (uint32_t i = 0; i < m->nconds; i++) {
        struct aclrt_cond *c = m->conds[i];
        if (c->used && c->flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
            b->starts[b->nstarts++] = c; /* kept by its task in b */
        for (uint32_t k = 0; c->used && k < c->size; k++)
            for (uint32_t j = 0; j < c->bodies[k]->nstarts; j++)
                b->starts[b->nstarts++] = c->bodies[k]->starts[j];
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI (output) is NULL");
    *modelRI = NULL;
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    struct aclrt_capture *c = &s->capture;
    uint32_t st = c->status;
    if (st == ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is not capturing (aclmdlRICaptureBegin first)", stream);
    }
    if (aclrt_capture_is_build(s)) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is bound to a model being built (aclmdlRIBindStream), not capturing; its tasks "
                          "end with aclmdlRIEndTask",
                          stream);
    }
    if (aclrt_capture_origin(s)->capture.update != NULL) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is updating a task group, not capturing (aclmdlRICaptureTaskUpdateEnd ends it)",
                          stream);
    }
    if (c->origin != NULL) {
        int origin = (int)aclrt_slot_index(&c->origin->hdr);
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                          "stream %p joined the capture of stream %d, which began it; end it there", stream, origin);
    }
    struct aclrt_stream *unjoined = aclrt_capture_unjoined(s);
    int unjoined_id = unjoined != NULL ? (int)aclrt_slot_index(&unjoined->hdr) : -1;
    uint32_t mode = c->mode, tid = c->tid;
    struct aclrt_model *m = c->model;
    void *handle = aclrt_slot_handle(&aclrt_models, &m->hdr); /* alive: not destroyed while its stream captures it */
    struct aclrt_task *tasks;
    uint32_t *lanes, count, nlanes;
    aclrt_capture_finish_lanes(s, &tasks, &count, &lanes, &nlanes);
    aclrt_capture_unlock();

    rc = ACL_SUCCESS;
    struct aclrt_model_body *b = NULL;
    if (mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && tid != aclrt_thread_tid())
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                        "the capture on stream %p began on another thread and its mode is not "
                        "ACL_MODEL_RI_CAPTURE_MODE_RELAXED; the capture is ended and its model destroyed",
                        stream);
    else if (st == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "the capture on stream %p was invalidated by a call that cannot be captured; "
                        "its model is destroyed",
                        stream);
    else if (unjoined != NULL)
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_UNJOINED,
                        "stream %d joined the capture on stream %p and was not joined back (an event recorded on it "
                        "after its last task, waited for by the origin stream); the capture is ended and its model "
                        "destroyed",
                        unjoined_id, stream);
    else if ((b = (struct aclrt_model_body *)malloc(sizeof *b)) == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");
    if (rc != ACL_SUCCESS) {
        aclrt_capture_drop_tasks(tasks, count);
        free(lanes);
        if (aclrt_model_lock_alive(m, handle))
            aclrt_model_retire(m);
        return rc;
    }
    aclrt_model_body_init(b, tasks, count, lanes, nlanes); /* its life: set with the model's lock below */
    /* A destroy that came between the capture's end and here (another thread's) took the model away. */
    if (!aclrt_model_lock_alive(m, handle)) {
        aclrt_model_body_put(b); /* the last reference: the tasks go with it */
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "the capture's model was destroyed while the capture ended");
    }
    if (m->nconds > 0 && (rc = aclrt_model_resolve_conds(m, b)) != ACL_SUCCESS) {
        aclrt_model_retire(m);
        aclrt_model_body_put(b);
        return rc;
    }
    b->life = aclrt_model_life_get(m);
    m->state = ACLRT_MODEL_READY;
    m->stream = NULL;
    b->aborts = &m->aborts;
    m->body = b;
    *modelRI = handle;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    ACLRT_ENTER();
    if (mode == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode is NULL");
    if (!aclrt_capture_mode_valid(*mode))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %d is not an aclmdlRICaptureMode", (int)*mode);
    aclmdlRICaptureMode old = aclrt_capture_thread_mode;
    aclrt_capture_thread_mode = *mode;
    *mode = old;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_CAPTURE_H */
