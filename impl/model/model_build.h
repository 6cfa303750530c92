/*
 * impl/model/model_build.h - building a model explicitly: aclmdlRIBuildBegin,
 * aclmdlRIBindStream, aclmdlRIEndTask, aclmdlRIBuildEnd,
 * aclmdlRIUnbindStream. A bound stream collects tasks as a capture of its
 * own (stream_capture.h) until aclmdlRIEndTask (or BuildEnd) appends them to
 * the model's build (struct aclrt_build, under the capture lock), which
 * BuildEnd resolves (labels, label.h) and turns into the model's body
 * (model.h). Lock order: a model's lock, then the capture lock.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_BUILD_H
#define ACLRT_IMPL_MODEL_MODEL_BUILD_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../context/context.h"
#include "label.h"
#include "stream_activate.h"
#include "model.h"
#include "model_args.h"

/* ------------------------------------------------------------------------
 * Building a model explicitly
 * ------------------------------------------------------------------------ */

/* The live model a handle names, locked, made by aclmdlRIBuildBegin (else ACL_ERROR_RT_PARAM_INVALID). */
static aclError aclrt_model_get_built(aclmdlRI modelRI, struct aclrt_model **out)
{
    aclError rc = aclrt_model_get(modelRI, out);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!(*out)->built) {
        aclrt_model_unlock(*out);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "modelRI %p was made by a capture (aclmdlRICaptureBegin), not by aclmdlRIBuildBegin",
                          modelRI);
    }
    return ACL_SUCCESS;
}

/*
 * The live model a handle names, locked, made by aclmdlRIBuildBegin and
 * still being built (else ACL_ERROR_RT_PARAM_INVALID; `ended`, the
 * caller's wording, says why a build that has ended refuses the call).
 */
static aclError aclrt_model_get_building(aclmdlRI modelRI, const char *ended, struct aclrt_model **out)
{
    aclError rc = aclrt_model_get_built(modelRI, out);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((*out)->state != ACLRT_MODEL_BUILDING) {
        aclrt_model_unlock(*out);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the build of modelRI %p has ended (aclmdlRIBuildEnd); %s",
                          modelRI, ended);
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI (output) is NULL");
    *modelRI = NULL;
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag %u is reserved and must be 0", (unsigned)flag);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_model_new(ACLRT_MODEL_BUILDING, ctx, NULL, NULL, modelRI) == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "flag %#x is neither ACL_MODEL_STREAM_FLAG_HEAD nor ACL_MODEL_STREAM_FLAG_DEFAULT",
                          (unsigned)flag);
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream cannot be bound)", true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (s->is_default)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "stream %p is a default stream, which cannot be bound", stream);
    struct aclrt_model *m;
    if ((rc = aclrt_model_get_building(modelRI, "no stream binds to it any more", &m)) != ACL_SUCCESS)
        return rc;
    if (m->ctx != s->ctx) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_CONTEXT, "modelRI %p belongs to another context than stream %p",
                          modelRI, stream);
    }
    struct aclrt_build *b = &m->build;
    aclrt_capture_lock();
    struct aclrt_build *other = aclrt_stream_bound(s);
    bool capturing = s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    bool room = other == NULL && !capturing &&
                aclrt_capture_grow((void **)&b->streams, &b->streams_cap, b->nstreams, sizeof *b->streams);
    if (room) {
        b->streams[b->nstreams++] = s;
        atomic_store_explicit(&s->capture.bound, b, memory_order_relaxed); /* see aclrt_stream_bound */
        s->capture.activated = flag == ACL_MODEL_STREAM_FLAG_DEFAULT;
        aclrt_capture_start(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED, m);
    }
    aclrt_capture_unlock();
    aclrt_model_unlock(m);
    if (other != NULL)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %p is already bound to %s (aclmdlRIUnbindStream first)",
                          stream, other == b ? "this model" : "another model");
    if (capturing)
        return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURED, "stream %p is capturing a model and cannot be bound", stream);
    if (!room)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for the streams of modelRI %p", modelRI);
    return ACL_SUCCESS;
}

/*
 * The tasks a bound stream s collects for build b end (under the capture
 * lock; s collects): they are handed over to b. ACL_SUCCESS, or the code
 * for a capture that was invalidated or no memory (the tasks are then in
 * *lost, to drop outside the lock, and the build cannot end).
 */
static aclError aclrt_build_take(struct aclrt_build *b, struct aclrt_stream *s, struct aclrt_task **lost,
                                 uint32_t *nlost)
{
    uint32_t status = s->capture.status;
    struct aclrt_task *tasks;
    uint32_t count;
    aclrt_capture_finish(s, &tasks, &count);
    *lost = NULL;
    *nlost = 0;
    if (status != ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED && aclrt_build_append(b, s, s->capture.activated, tasks, count))
        return ACL_SUCCESS;
    b->lost = true;
    *lost = tasks;
    *nlost = count;
    return status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED ? ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED
                                                              : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

ACLRT_API aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is never bound)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_model *m;
    if ((rc = aclrt_model_get_building(modelRI, "its tasks have all ended", &m)) != ACL_SUCCESS)
        return rc;
    struct aclrt_build *b = &m->build;
    struct aclrt_task *lost = NULL;
    uint32_t nlost = 0;
    aclrt_capture_lock();
    bool bound = aclrt_stream_bound(s) == b;
    bool collecting = bound && s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL;
    if (collecting && (rc = aclrt_build_take(b, s, &lost, &nlost)) == ACL_SUCCESS)
        b->ended++;
    aclrt_capture_unlock();
    aclrt_model_unlock(m);
    aclrt_capture_drop_tasks(lost, nlost);
    if (!bound)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %p is not bound to modelRI %p (aclmdlRIBindStream first)",
                          stream, modelRI);
    if (!collecting)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "the tasks of stream %p in modelRI %p have already ended",
                          stream, modelRI);
    if (rc == ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED)
        return aclrt_fail(rc,
                          "a call on stream %p could not be kept in modelRI %p and invalidated its tasks; they are "
                          "dropped and the build cannot end (destroy the model)",
                          stream, modelRI);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "out of memory for the tasks of stream %p in modelRI %p; the build cannot end", stream,
                          modelRI);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    if (reserve != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "reserve is reserved and must be NULL");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_model *m;
    aclError rc = aclrt_model_get_building(modelRI, "it ends once", &m);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_build *b = &m->build;
    struct aclrt_model_body *body = (struct aclrt_model_body *)malloc(sizeof *body);
    aclrt_capture_lock();
    const char *why = NULL;
    if (b->lost) {
        rc = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
        why = "tasks of a bound stream were lost (an invalidated stream, a stream destroyed while collecting, no "
              "memory)";
    } else if (b->nstreams == 0 && b->ended == 0) {
        rc = ACL_ERROR_RT_STREAM_MODEL;
        why = "no stream is bound to it (aclmdlRIBindStream)";
    } else if (b->ended == 0) {
        rc = ACL_ERROR_RT_INTERNAL_ERROR;
        why = "no bound stream marked the end of its tasks (aclmdlRIEndTask)";
    } else if (body == NULL) {
        rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
        why = "out of memory";
    }
    /* Streams still collecting hand over their tasks, in the order they were bound. */
    struct aclrt_task *lost = NULL;
    uint32_t nlost = 0;
    int failed = -1;
    for (uint32_t i = 0; rc == ACL_SUCCESS && i < b->nstreams; i++) {
        struct aclrt_stream *s = b->streams[i];
        if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL &&
            (rc = aclrt_build_take(b, s, &lost, &nlost)) != ACL_SUCCESS)
            failed = (int)aclrt_slot_index(&s->hdr);
    }
    void *bad_label = NULL;
    bool twice = false;
    if (rc == ACL_SUCCESS && !aclrt_build_resolve_labels(b->tasks, b->count, &bad_label, &twice))
        rc = ACL_ERROR_RT_PARAM_INVALID;
    if (rc == ACL_SUCCESS) {
        aclrt_model_body_init(body, b->tasks, b->count, b->lanes, b->nhanded);
        body->lane_streams = b->handed;
        body->lane_mode = aclrt_build_resolve_activations(b);
        b->activated = NULL;
        body->life = aclrt_model_life_get(m);
        b->tasks = NULL;
        b->lanes = NULL;
        b->handed = NULL;
        b->count = b->cap = b->nhanded = 0;
    }
    aclrt_capture_unlock();
    if (rc != ACL_SUCCESS) {
        aclrt_model_unlock(m);
        free(body);
        aclrt_capture_drop_tasks(lost, nlost);
        if (why != NULL)
            return aclrt_fail(rc, "the build of modelRI %p cannot end: %s", modelRI, why);
        if (failed < 0)
            return aclrt_fail(rc,
                              "the build of modelRI %p cannot end: label %p, which a switch names, is set %s "
                              "(aclrtSetLabel on a bound stream, once)",
                              modelRI, bad_label, twice ? "more than once" : "on none of its streams");
        return aclrt_fail(rc, "the build of modelRI %p cannot end: the tasks of stream %d were %s", modelRI, failed,
                          rc == ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED ? "invalidated by a call it could not keep"
                                                                        : "lost for want of memory");
    }
    m->state = ACLRT_MODEL_READY;
    body->aborts = &m->aborts;
    m->body = body;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is never bound)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_model *m;
    if ((rc = aclrt_model_get_built(modelRI, &m)) != ACL_SUCCESS)
        return rc;
    struct aclrt_task *tasks = NULL;
    uint32_t count = 0;
    aclrt_capture_lock();
    bool bound = aclrt_stream_bound(s) == &m->build;
    if (bound)
        aclrt_model_unbind_stream(m, s, &tasks, &count); /* tasks not ended: they never make it into the model */
    aclrt_capture_unlock();
    aclrt_model_unlock(m);
    aclrt_capture_drop_tasks(tasks, count);
    if (!bound)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %p is not bound to modelRI %p", stream, modelRI);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_BUILD_H */
