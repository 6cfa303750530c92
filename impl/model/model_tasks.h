/*
 * impl/model/model_tasks.h - a model's streams and tasks (aclmdlRIGetStreams,
 * aclmdlRIGetTasksByStream, aclmdlRITaskGetType, aclmdlRITaskGetSeqId).
 *
 * A model's body keeps, for each task, the stream it was submitted to
 * (its lane: struct aclrt_model_body in model.h).
 *
 *   - A captured model's streams are streams of the model's own, as the
 *     runtime makes for a capture: the origin's first, then the streams
 *     that joined the capture, in the order they joined. Their handles
 *     name a model and a lane; they are good for aclmdlRIGetTasksByStream
 *     while the model lives, and for no other stream call (the work they
 *     hold runs only inside a replay).
 *   - A built model's streams are the streams bound to it
 *     (aclmdlRIBindStream), the user's own handles; each lists the tasks
 *     it handed over while it stays bound.
 *   - A task handle names a model and the task's place in its body (the
 *     place is its sequence id, aclmdlRITaskGetSeqId, counted from 0 over
 *     all the model's streams in submission order). After a task-group
 *     update the handle names the task now at that place.
 *
 * Both handles are values, no memory (as every handle, impl/core/handle.h):
 *
 *     63      56 55  52 51      40 39             20 19             0
 *     [ magic  ][ kind ][ life   ][ model's slot    ][ lane or place  ]
 *
 * `life` is the model's life modulo 4096 (a handle kept over 4096 lives of
 * its model's slot could match again), and a model has at most 2^20 tasks
 * and streams that handles can name.
 *
 * The dependencies between a capture's streams are kept by the order of
 * the body (capture.h), not by tasks: a captured model lists no event
 * record or wait tasks for them, only those the replay itself makes
 * (ACL_EVENT_RECORD_EXTERNAL, ACL_EVENT_WAIT_EXTERNAL).
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_TASKS_H
#define ACLRT_IMPL_MODEL_MODEL_TASKS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "model.h"
#include "model_args.h"

#define ACLRT_MODEL_REF_POS_BITS 20
#define ACLRT_MODEL_REF_SLOT_BITS 20
#define ACLRT_MODEL_REF_LIFE_BITS 12
#define ACLRT_MODEL_REF_MAX (1u << ACLRT_MODEL_REF_POS_BITS) /* tasks or streams a handle can name */

ACLRT_INLINE void *aclrt_model_ref_encode(uint32_t kind, const struct aclrt_model *m, uint32_t pos)
{
    uint64_t life = (atomic_load_explicit(&m->hdr.generation, memory_order_relaxed) >> 1) &
                    ((1u << ACLRT_MODEL_REF_LIFE_BITS) - 1);
    uint64_t h = (ACLRT_HANDLE_MAGIC << 56) | ((uint64_t)kind << 52) |
                 (life << (ACLRT_MODEL_REF_SLOT_BITS + ACLRT_MODEL_REF_POS_BITS)) |
                 ((uint64_t)aclrt_slot_index(&m->hdr) << ACLRT_MODEL_REF_POS_BITS) | pos;
    return (void *)(uintptr_t)h;
}

/* Does h look like a handle of `kind` made by aclrt_model_ref_encode? */
ACLRT_INLINE bool aclrt_model_ref_is(const void *h, uint32_t kind)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    return (v >> 56) == ACLRT_HANDLE_MAGIC && ((v >> 52) & 0xF) == kind;
}

/*
 * The live model a handle of aclrt_model_ref_encode names, locked, and
 * the position it names (*pos); only a ready model unless `any_state`. An
 * error otherwise (`what` names the handle in the message).
 */
ACLRT_INTERNAL aclError aclrt_model_ref_resolve_in(const void *h, uint32_t kind, const char *what, bool any_state,
                                           struct aclrt_model **out, uint32_t *pos)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t index = (uint32_t)(v >> ACLRT_MODEL_REF_POS_BITS) & ((1u << ACLRT_MODEL_REF_SLOT_BITS) - 1);
    uint32_t life = (uint32_t)(v >> (ACLRT_MODEL_REF_SLOT_BITS + ACLRT_MODEL_REF_POS_BITS)) &
                    ((1u << ACLRT_MODEL_REF_LIFE_BITS) - 1);
    struct aclrt_model *m = NULL;
    if (aclrt_model_ref_is(h, kind) &&
        index < atomic_load_explicit(&aclrt_models.high_water, memory_order_acquire))
        m = (struct aclrt_model *)aclrt_table_slot(&aclrt_models, index);
    if (m != NULL) {
        aclrt_model_lock(m);
        /* Under the model's lock, which its retirement holds: the generation is the model's now. */
        uint32_t gen = atomic_load_explicit(&m->hdr.generation, memory_order_acquire);
        if ((gen & 1u) && ((gen >> 1) & ((1u << ACLRT_MODEL_REF_LIFE_BITS) - 1)) == life &&
            (any_state || m->state == ACLRT_MODEL_READY)) {
            *out = m;
            *pos = (uint32_t)(v & (ACLRT_MODEL_REF_MAX - 1));
            return ACL_SUCCESS;
        }
        aclrt_model_unlock(m);
    }
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "%s %p is not one of a live model's (destroyed model, or garbage)",
                      what, h);
}

/* A stream or task handle: of a ready model. */
static aclError aclrt_model_ref_resolve(const void *h, uint32_t kind, const char *what, struct aclrt_model **out,
                                        uint32_t *pos)
{
    return aclrt_model_ref_resolve_in(h, kind, what, false, out, pos);
}

/*
 * The end of a listing of `total` handles into out[0 .. *num) (the caller
 * filled the first min(*num, total)): the rest of the array gets NULL and
 * *num the number filled; out NULL: *num = total. An array too small gets
 * ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY (what fits is filled).
 */
static aclError aclrt_model_list(void **out, uint32_t *num, uint32_t total, const char *what)
{
    if (out == NULL) {
        *num = total;
        return ACL_SUCCESS;
    }
    uint32_t room = *num;
    for (uint32_t i = total; i < room; i++)
        out[i] = NULL;
    *num = room < total ? room : total;
    if (room < total)
        return aclrt_fail(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY,
                          "the array holds %u %s and there are %u (the first %u are filled)", (unsigned)room, what,
                          (unsigned)total, (unsigned)room);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    ACLRT_ENTER();
    if (numStreams == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "numStreams is NULL");
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!m->built && m->state != ACLRT_MODEL_READY) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_CAPTURED,
                          "modelRI %p is still being captured, or its capture has not begun (its streams are known "
                          "at aclmdlRICaptureEnd)",
                          modelRI);
    }
    uint32_t total, room = streams != NULL ? *numStreams : 0;
    if (m->built) {
        /* The streams bound now, under the capture lock (the model's lock keeps the build itself). */
        aclrt_capture_lock();
        struct aclrt_build *b = &m->build;
        total = b->nstreams;
        for (uint32_t i = 0; i < total && i < room; i++)
            streams[i] = aclrt_slot_handle(&aclrt_streams, &b->streams[i]->hdr);
        aclrt_capture_unlock();
    } else {
        total = m->body->nlanes < ACLRT_MODEL_REF_MAX ? m->body->nlanes : ACLRT_MODEL_REF_MAX;
        for (uint32_t i = 0; i < total && i < room; i++)
            streams[i] = aclrt_model_ref_encode(ACLRT_KIND_MODEL_STREAM, m, i);
    }
    aclrt_model_unlock(m);
    return aclrt_model_list(streams, numStreams, total, "streams");
}

/*
 * The model and lane a stream handle of aclmdlRIGetStreams names: a
 * captured model's stream, or a stream bound to a built, ready model. The
 * model is returned locked.
 */
static aclError aclrt_model_lane_resolve(aclrtStream stream, struct aclrt_model **out, uint32_t *lane)
{
    if (aclrt_model_ref_is(stream, ACLRT_KIND_MODEL_STREAM)) {
        aclError rc = aclrt_model_ref_resolve(stream, ACLRT_KIND_MODEL_STREAM, "stream", out, lane);
        if (rc == ACL_SUCCESS && *lane >= (*out)->body->nlanes) {
            aclrt_model_unlock(*out);
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not one of its model's streams", stream);
        }
        return rc;
    }
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is no model's)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Model lock before capture lock: find the model under the capture lock, then take both in order. */
    aclrt_capture_lock();
    struct aclrt_build *b = aclrt_stream_bound(s);
    struct aclrt_model *m = b != NULL ? (struct aclrt_model *)((char *)b - offsetof(struct aclrt_model, build)) : NULL;
    void *mh = m != NULL ? aclrt_slot_handle(&aclrt_models, &m->hdr) : NULL;
    aclrt_capture_unlock();
    if (m != NULL && aclrt_model_lock_alive(m, mh)) {
        aclrt_capture_lock();
        bool still = aclrt_stream_bound(s) == &m->build;
        aclrt_capture_unlock();
        struct aclrt_model_body *body = m->body;
        for (uint32_t i = 0; still && m->state == ACLRT_MODEL_READY && i < body->nlanes; i++)
            if (body->lane_streams[i] == s) {
                *out = m;
                *lane = i;
                return ACL_SUCCESS;
            }
        if (still && m->state == ACLRT_MODEL_READY) { /* bound, but handed over no task */
            *out = m;
            *lane = UINT32_MAX;
            return ACL_SUCCESS;
        }
        aclrt_model_unlock(m);
        if (still)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "stream %p is bound to a model that is still being built (aclmdlRIBuildEnd first)",
                              stream);
    }
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "stream %p is not a model's stream (one of aclmdlRIGetStreams, or a stream bound to a built "
                      "model)",
                      stream);
}

ACLRT_API aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks)
{
    ACLRT_ENTER();
    if (numTasks == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "numTasks is NULL");
    struct aclrt_model *m;
    uint32_t lane;
    aclError rc = aclrt_model_lane_resolve(stream, &m, &lane);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_model_body *b = m->body;
    uint32_t total = 0, room = tasks != NULL ? *numTasks : 0;
    uint32_t count = b->count < ACLRT_MODEL_REF_MAX ? b->count : ACLRT_MODEL_REF_MAX;
    for (uint32_t i = 0; i < count; i++)
        if (b->lanes[i] == lane) {
            if (total < room)
                tasks[total] = aclrt_model_ref_encode(ACLRT_KIND_MODEL_TASK, m, i);
            total++;
        }
    aclrt_model_unlock(m);
    return aclrt_model_list(tasks, numTasks, total, "tasks");
}

/* The model a task handle names (locked) and the task's place in its body. */
ACLRT_INTERNAL aclError aclrt_model_task_resolve(aclmdlRITask task, struct aclrt_model **m, uint32_t *step)
{
    if (task == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "task is NULL");
    aclError rc = aclrt_model_ref_resolve(task, ACLRT_KIND_MODEL_TASK, "task", m, step);
    if (rc == ACL_SUCCESS && *step >= (*m)->body->count) {
        aclrt_model_unlock(*m);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "task %p is not one of its model's tasks", task);
    }
    return rc;
}

/* What aclmdlRITaskGetType says of a kind: what the API names, else ACL_MODEL_RI_TASK_DEFAULT. */
ACLRT_INLINE aclmdlRITaskType aclrt_model_task_type(enum aclrt_task_kind_id id)
{
    switch (id) {
    case ACLRT_TASK_KERNEL: return ACL_MODEL_RI_TASK_KERNEL;
    case ACLRT_TASK_MODEL_RECORD: return ACL_MODEL_RI_TASK_EVENT_RECORD;
    case ACLRT_TASK_MODEL_WAIT: return ACL_MODEL_RI_TASK_EVENT_WAIT;
    default: return ACL_MODEL_RI_TASK_DEFAULT;
    }
}

ACLRT_API aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
    ACLRT_ENTER();
    if (type == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "type (output) is NULL");
    struct aclrt_model *m;
    uint32_t step;
    aclError rc = aclrt_model_task_resolve(task, &m, &step);
    if (rc != ACL_SUCCESS)
        return rc;
    *type = aclrt_model_task_type(m->body->tasks[step].kind->id);
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
    ACLRT_ENTER();
    if (id == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "id (output) is NULL");
    struct aclrt_model *m;
    uint32_t step;
    aclError rc = aclrt_model_task_resolve(task, &m, &step);
    if (rc != ACL_SUCCESS)
        return rc;
    bool built = m->built;
    aclrt_model_unlock(m);
    if (built)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "task %p is a task of a built model; sequence ids are a captured model's", task);
    *id = step;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_TASKS_H */
