/*
 * impl/model/model_cond.h - conditional tasks of a captured model
 * (aclmdlRICondHandleCreate, aclmdlRICondHandleGetCondPtr,
 * aclmdlRIAddCondTask, aclmdlRICaptureToModelRIBegin).
 *
 * During a capture, aclmdlRICondHandleCreate gives the model a condition
 * (a word in device memory: cond.h) and aclmdlRIAddCondTask captures a
 * conditional task with it on a capturing stream, making its branches:
 * new models (ACLRT_MODEL_BRANCH) whose work is captured with
 * aclmdlRICaptureToModelRIBegin .. aclmdlRICaptureEnd on any other stream.
 * The model's own aclmdlRICaptureEnd wants every branch ended
 * (ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING otherwise) and hands their
 * bodies to the condition; a replay runs the branch the word picks when it
 * reaches the task (model_replay.h). Branches may have conditional tasks of their
 * own. A branch is not executed or destroyed by itself: it goes with its
 * model.
 *
 * A condition handle is a value (impl/core/handle.h, model_tasks.h's layout):
 * the model's slot and life, and the condition's place in the model's
 * list; it lives as long as the model.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_COND_H
#define ACLRT_IMPL_MODEL_MODEL_COND_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "cond.h"
#include "model.h"
#include "model_args.h"
#include "model_capture.h"
#include "model_destroy.h"
#include "model_tasks.h"

/* The condition a handle names, and its model (locked). */
static aclError aclrt_cond_resolve(aclmdlRICondHandle handle, struct aclrt_model **m, struct aclrt_cond **out)
{
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "condition handle is NULL");
    uint32_t i;
    aclError rc = aclrt_model_ref_resolve_in(handle, ACLRT_KIND_COND, "condition handle", true, m, &i);
    if (rc != ACL_SUCCESS)
        return rc;
    if (i >= (*m)->nconds) {
        aclrt_model_unlock(*m);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "condition handle %p is not one of its model's", handle);
    }
    *out = (*m)->conds[i];
    return ACL_SUCCESS;
}

/* Is m being captured, its capture not invalidated (m locked)? */
static bool aclrt_model_capture_active(const struct aclrt_model *m)
{
    if (m->state != ACLRT_MODEL_CAPTURING)
        return false;
    aclrt_capture_lock();
    bool active = aclrt_model_captured(m) && m->stream->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    aclrt_capture_unlock();
    return active;
}

ACLRT_API aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag,
                                            aclmdlRICondHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle (output) is NULL");
    *handle = NULL;
    if ((uint32_t)flag != 0 && flag != ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag %u is neither 0 nor ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT",
                          (unsigned)flag);
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!aclrt_model_capture_active(m)) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "modelRI %p is not being captured (a condition is made during its capture)", modelRI);
    }
    struct aclrt_cond *c = NULL;
    if (m->nconds < ACLRT_MODEL_REF_MAX &&
        aclrt_capture_grow((void **)&m->conds, &m->conds_cap, m->nconds, sizeof *m->conds))
        c = aclrt_cond_new(m->ctx->device, defaultLaunchValue, (uint32_t)flag);
    if (c == NULL) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a condition of modelRI %p", modelRI);
    }
    m->conds[m->nconds] = c;
    *handle = aclrt_model_ref_encode(ACLRT_KIND_COND, m, m->nconds++);
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr (output) is NULL");
    struct aclrt_model *m;
    struct aclrt_cond *c;
    aclError rc = aclrt_cond_resolve(handle, &m, &c);
    if (rc != ACL_SUCCESS)
        return rc;
    *ptr = c->word;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

/* How many branches a conditional task of this type may have. */
static bool aclrt_cond_size_ok(aclmdlRICondTaskType type, uint32_t size)
{
    switch (type) {
    case ACL_MODEL_RI_COND_TYPE_IF: return size == 1 || size == 2;
    case ACL_MODEL_RI_COND_TYPE_WHILE: return size == 1;
    case ACL_MODEL_RI_COND_TYPE_SWITCH: return size > 0 && size < ACLRT_MODEL_REF_MAX;
    default: return false;
    }
}

ACLRT_API aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
    ACLRT_ENTER();
    if (params.modelRIArray == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "params.modelRIArray (output) is NULL");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags is reserved and must be 0");
    if (!aclrt_cond_size_ok(params.type, params.size))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "a conditional task of type %d cannot have %u branches (IF: 1 or 2, WHILE: 1, SWITCH: 1 or "
                          "more)",
                          (int)params.type, (unsigned)params.size);
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is not captured)", true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_model *m;
    struct aclrt_cond *c;
    if ((rc = aclrt_cond_resolve(params.handle, &m, &c)) != ACL_SUCCESS)
        return rc;
    if (c->used) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "the condition handle has a conditional task already; make another for this one");
    }
    /* The branches first (a model's lock, then its branches'), then the task, all under m's lock. */
    void *mh = aclrt_slot_handle(&aclrt_models, &m->hdr);
    void **subs = (void **)calloc(params.size, sizeof *subs);
    bool made = subs != NULL;
    for (uint32_t i = 0; made && i < params.size; i++)
        made = aclrt_model_new(ACLRT_MODEL_BRANCH, m->ctx, NULL, mh, &subs[i]) != NULL;
    const char *why = made ? NULL : "out of memory for its branches";
    rc = made ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (made) {
        /*
         * Checked and captured under the capture lock, so that the capture
         * it joins is m's: the task's reference on the condition is taken
         * first (a failing capture end drops the task at once).
         */
        aclrt_capture_lock();
        struct aclrt_capture *oc = &aclrt_capture_origin(s)->capture;
        if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_NONE || oc->model != m || oc->update != NULL) {
            rc = ACL_ERROR_RT_STREAM_NOT_CAPTURED;
            why = "the stream is not capturing the condition's model";
        } else if (oc->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED) {
            rc = ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED;
            why = "the capture was invalidated by an earlier call; end it";
        } else {
            struct aclrt_task t = {.kind = &aclrt_kind_cond, .tid = aclrt_thread_tid(), .u.cond.cond = c};
            atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed); /* the task's; the model's keeps it */
            if (!aclrt_capture_append(oc, &t, s->capture.lane)) {
                atomic_fetch_sub_explicit(&c->refs, 1, memory_order_relaxed); /* not the last: the model's */
                oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
                rc = ACL_ERROR_RT_MEMORY_ALLOCATION;
                why = "out of memory for the task; the capture is invalidated";
            }
        }
        aclrt_capture_unlock();
    }
    if (rc == ACL_SUCCESS) {
        c->used = true;
        c->type = (uint32_t)params.type;
        c->size = params.size;
        c->subs = subs;
        for (uint32_t i = 0; i < params.size; i++)
            params.modelRIArray[i] = subs[i];
    }
    aclrt_model_unlock(m);
    if (rc == ACL_SUCCESS)
        return ACL_SUCCESS;
    for (uint32_t i = 0; subs != NULL && i < params.size; i++) {
        struct aclrt_model *b = aclrt_model_lock_handle(subs[i]); /* NULL (not made): none */
        if (b != NULL)
            aclrt_model_retire(b);
    }
    free(subs);
    return aclrt_fail(rc, "no conditional task is added on stream %p: %s", stream, why);
}

ACLRT_API aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode)
{
    ACLRT_ENTER();
    if (!aclrt_capture_mode_valid(mode))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %d is not an aclmdlRICaptureMode", (int)mode);
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream cannot be captured)", true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_model *m;
    if ((rc = aclrt_model_get(modelRI, &m)) != ACL_SUCCESS)
        return rc;
    if (m->state != ACLRT_MODEL_BRANCH) {
        bool branch = m->parent != NULL;
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          branch ? "modelRI %p has been captured already (a branch is captured once)"
                                 : "modelRI %p is not a branch of a conditional task (aclmdlRIAddCondTask makes them)",
                          modelRI);
    }
    if (m->ctx != s->ctx) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_STREAM_CONTEXT, "stream %p belongs to another context than modelRI %p", stream,
                          modelRI);
    }
    if ((rc = aclrt_model_capture_start(s, mode, m)) == ACL_SUCCESS) {
        m->state = ACLRT_MODEL_CAPTURING; /* under m's lock, which whoever reads it holds */
        m->stream = s;
    }
    aclrt_model_unlock(m);
    if (rc == ACL_ERROR_RT_STREAM_MODEL)
        return aclrt_fail(rc, "stream %p is bound to a model (aclmdlRIBindStream) and cannot be captured", stream);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "stream %p is already capturing a model", stream);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_COND_H */
