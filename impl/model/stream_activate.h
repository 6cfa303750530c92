/*
 * impl/model/stream_activate.h - persistent streams and stream activation
 * in a model built explicitly (aclrtActiveStream, aclrtSwitchStream,
 * aclrtPersistentTaskClean; ACL_MODEL_STREAM_FLAG_DEFAULT in
 * aclmdlRIBindStream).
 *
 * aclrtActiveStream and aclrtSwitchStream add a step to a bound stream's
 * tasks (as a label does, label.h) naming another stream bound to the
 * same model with ACL_MODEL_STREAM_FLAG_DEFAULT. aclmdlRIBuildEnd turns
 * the stream into its lane in the body (aclrt_build_resolve_activations)
 * and marks such lanes ACLRT_LANE_ACTIVATED: the replay (model_replay.h)
 * leaves their steps out of its own loop and, when it reaches an
 * activation, runs the lane on a thread of its own, in parallel, until it
 * ends; the replay ends when every lane it started has. A switch compares
 * two values in device memory when it is reached: if the comparison
 * holds it activates its stream and the lane that holds it stops there.
 *
 * aclrtPersistentTaskClean gives the model a new body (copy-on-write, as
 * an update does: replays in flight keep theirs) whose lane of the stream
 * is ACLRT_LANE_CLEANED: it never runs again.
 */
#ifndef ACLRT_IMPL_MODEL_STREAM_ACTIVATE_H
#define ACLRT_IMPL_MODEL_STREAM_ACTIVATE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "label.h"
#include "model.h"
#include "model_args.h"

#define ACLRT_LANE_NONE UINT32_MAX /* an activation whose stream handed no task to the model: it starts nothing */

/* On their own the steps do nothing: the replay runs them (model_replay.h). */
static int aclrt_activation_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)t, (void)blk;
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_stream_active = {ACLRT_TASK_STREAM_ACTIVE, "stream activation",
                                                                aclrt_activation_run, NULL};
static const struct aclrt_task_kind aclrt_kind_stream_switch = {ACLRT_TASK_STREAM_SWITCH, "stream switch",
                                                                aclrt_activation_run, NULL};

ACLRT_INLINE bool aclrt_is_activation(const struct aclrt_task *t)
{
    return t->kind == &aclrt_kind_stream_active || t->kind == &aclrt_kind_stream_switch;
}

/*
 * Resolve a build's activations (under the capture lock, at
 * aclmdlRIBuildEnd): each names its stream's lane, or ACLRT_LANE_NONE.
 * Returns the lanes' modes for the body (b->activated, now the body's),
 * or NULL if every lane is a head lane (then b->activated is freed).
 */
ACLRT_INTERNAL uint8_t *aclrt_build_resolve_activations(struct aclrt_build *b)
{
    for (uint32_t i = 0; i < b->count; i++) {
        struct aclrt_task *t = &b->tasks[i];
        if (!aclrt_is_activation(t))
            continue;
        t->u.activate.lane = ACLRT_LANE_NONE;
        for (uint32_t l = 0; l < b->nhanded; l++)
            if (b->handed[l] == t->u.activate.target && b->activated[l])
                t->u.activate.lane = l;
    }
    bool any = false;
    for (uint32_t l = 0; l < b->nhanded; l++)
        any |= b->activated[l] != 0;
    if (!any) {
        free(b->activated);
        return NULL;
    }
    for (uint32_t l = 0; l < b->nhanded; l++)
        b->activated[l] = b->activated[l] ? ACLRT_LANE_ACTIVATED : ACLRT_LANE_HEAD;
    return b->activated;
}

/* Read a comparison's value (`size` bytes) from device memory; an error code if it cannot be read. */
static aclError aclrt_switch_read(const void *p, void *v, size_t size)
{
    const struct aclrt_backend *be = aclrt_rt.backend;
    if (be != NULL && be->mem_copy != NULL)
        return be->mem_copy(v, p, size, ACL_MEMCPY_DEVICE_TO_HOST);
    memcpy(v, p, size);
    return ACL_SUCCESS;
}

/* Does a switch step's comparison hold now (*holds)? An error code if its values cannot be read. */
ACLRT_INTERNAL aclError aclrt_switch_holds(const struct aclrt_task *t, bool *holds)
{
    int64_t l, r;
    aclError rc;
    if (t->u32 == ACL_RT_SWITCH_INT32) {
        int32_t l32 = 0, r32 = 0;
        if ((rc = aclrt_switch_read(t->u.activate.left, &l32, sizeof l32)) != ACL_SUCCESS ||
            (rc = aclrt_switch_read(t->u.activate.right, &r32, sizeof r32)) != ACL_SUCCESS)
            return rc;
        l = l32;
        r = r32;
    } else {
        l = r = 0;
        if ((rc = aclrt_switch_read(t->u.activate.left, &l, sizeof l)) != ACL_SUCCESS ||
            (rc = aclrt_switch_read(t->u.activate.right, &r, sizeof r)) != ACL_SUCCESS)
            return rc;
    }
    switch (t->u.activate.cond) {
    case ACL_RT_EQUAL: *holds = l == r; break;
    case ACL_RT_NOT_EQUAL: *holds = l != r; break;
    case ACL_RT_GREATER: *holds = l > r; break;
    case ACL_RT_GREATER_OR_EQUAL: *holds = l >= r; break;
    case ACL_RT_LESS: *holds = l < r; break;
    default: *holds = l <= r; break; /* ACL_RT_LESS_OR_EQUAL */
    }
    return ACL_SUCCESS;
}

/*
 * An activation step naming `target` for stream s (both resolved): the
 * target must be bound to the model s is bound to, with
 * ACL_MODEL_STREAM_FLAG_DEFAULT; s must still collect (checked again when
 * the step is added).
 */
static aclError aclrt_activation_add(struct aclrt_stream *s, struct aclrt_stream *target, struct aclrt_task *t,
                                     const char *what)
{
    aclrt_capture_lock();
    struct aclrt_build *b = aclrt_stream_bound(s);
    bool same = b != NULL && aclrt_stream_bound(target) == b;
    bool activated = target->capture.activated;
    aclrt_capture_unlock();
    if (target == s)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s: a stream cannot activate itself", what);
    if (b == NULL)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL,
                          "%s: stream %d is not bound to a model being built (aclmdlRIBindStream)", what,
                          (int)aclrt_slot_index(&s->hdr));
    if (!same)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL,
                          "%s: the stream to activate (%d) is not bound to the model stream %d is bound to", what,
                          (int)aclrt_slot_index(&target->hdr), (int)aclrt_slot_index(&s->hdr));
    if (!activated)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%s: stream %d is bound with ACL_MODEL_STREAM_FLAG_HEAD (it runs from the start); only a "
                          "stream bound with ACL_MODEL_STREAM_FLAG_DEFAULT is activated",
                          what, (int)aclrt_slot_index(&target->hdr));
    t->u.activate.target = target;
    t->u.activate.lane = ACLRT_LANE_NONE;
    return aclrt_build_add_step(s, t, what);
}

ACLRT_API aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
    ACLRT_ENTER();
    if (activeStream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "activeStream is NULL (the default stream is never bound)");
    struct aclrt_stream *s, *target;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is never bound)", true, &s);
    if (rc != ACL_SUCCESS || (rc = aclrt_stream_resolve(activeStream, true, &target)) != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_stream_active};
    return aclrt_activation_add(s, target, &t, "aclrtActiveStream");
}

ACLRT_API aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                                     aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream,
                                     aclrtStream stream)
{
    ACLRT_ENTER();
    if (leftValue == NULL || rightValue == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", leftValue == NULL ? "leftValue" : "rightValue");
    if ((unsigned)cond > (unsigned)ACL_RT_LESS_OR_EQUAL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cond %d is not an aclrtCondition", (int)cond);
    if (dataType != ACL_RT_SWITCH_INT32 && dataType != ACL_RT_SWITCH_INT64)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataType %d is not an aclrtCompareDataType", (int)dataType);
    size_t size = dataType == ACL_RT_SWITCH_INT32 ? sizeof(int32_t) : sizeof(int64_t);
    if ((uintptr_t)leftValue % size != 0 || (uintptr_t)rightValue % size != 0)
        return aclrt_fail(ACL_ERROR_RT_ADDR_UNALIGNED, "leftValue %p or rightValue %p is not aligned to %zu bytes",
                          leftValue, rightValue, size);
    if (trueStream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "trueStream is NULL (the default stream is never bound)");
    if (falseStream != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "falseStream is reserved and must be NULL");
    struct aclrt_stream *s, *target;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is never bound)", true, &s);
    if (rc != ACL_SUCCESS || (rc = aclrt_stream_resolve(trueStream, true, &target)) != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_stream_switch,
                           .u32 = (uint32_t)dataType,
                           .u.activate.left = leftValue,
                           .u.activate.right = rightValue,
                           .u.activate.cond = (uint32_t)cond};
    return aclrt_activation_add(s, target, &t, "aclrtSwitchStream");
}

/*
 * A body like cur (READY, built) whose lane `lane` is cleaned, or NULL
 * (out of memory). It shares cur's tasks (a copy of their records) and
 * holds a reference to it, as an updated body does its root (model.h).
 */
static struct aclrt_model_body *aclrt_body_cleaned(struct aclrt_model_body *cur, uint32_t lane)
{
    struct aclrt_model_body *root = cur->root != NULL ? cur->root : cur;
    struct aclrt_model_body *b = (struct aclrt_model_body *)malloc(sizeof *b);
    struct aclrt_task *tasks =
        (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, (cur->count ? cur->count : 1) * sizeof *tasks);
    uint8_t *mode = (uint8_t *)calloc(cur->nlanes, 1);
    if (b == NULL || tasks == NULL || mode == NULL) {
        free(b);
        free(tasks);
        free(mode);
        return NULL;
    }
    if (cur->count > 0)
        memcpy(tasks, cur->tasks, (size_t)cur->count * sizeof *tasks);
    if (cur->lane_mode != NULL)
        memcpy(mode, cur->lane_mode, cur->nlanes);
    mode[lane] = ACLRT_LANE_CLEANED;
    aclrt_model_body_init(b, tasks, cur->count, cur->lanes, cur->nlanes);
    b->lane_streams = cur->lane_streams;
    b->lane_mode = mode;
    b->starts = cur->starts;
    b->nstarts = cur->nstarts;
    b->root = root;
    atomic_fetch_add_explicit(&root->refs, 1, memory_order_relaxed); /* the model's body keeps it */
    return b;
}

ACLRT_API aclError aclrtPersistentTaskClean(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is not persistent)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!(s->flags & ACL_STREAM_PERSISTENT))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "stream %p was not made with ACL_STREAM_PERSISTENT (aclrtCreateStreamWithConfig)", stream);
    struct aclrt_build *hint = aclrt_stream_bound(s);
    if (hint == NULL)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %p is not bound to a model (aclmdlRIBindStream)", stream);
    /* The build is in its model, whose slot lives as long as the table: lock it, then check it is still s's. */
    struct aclrt_model *m = (struct aclrt_model *)(void *)((char *)hint - offsetof(struct aclrt_model, build));
    if (!aclrt_model_lock_alive(m, aclrt_slot_handle(&aclrt_models, &m->hdr)))
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "the model stream %p was bound to is gone", stream);
    aclrt_capture_lock();
    bool still = aclrt_stream_bound(s) == &m->build;
    aclrt_capture_unlock();
    if (!still || m->state != ACLRT_MODEL_READY) {
        aclrt_model_unlock(m);
        if (!still)
            return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %p is no longer bound to a model", stream);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the build of the model stream %p is bound to has not ended (aclmdlRIBuildEnd first)",
                          stream);
    }
    struct aclrt_model_body *cur = m->body;
    uint32_t lane = 0;
    while (lane < cur->nlanes && cur->lane_streams[lane] != s)
        lane++;
    if (lane == cur->nlanes || (cur->lane_mode != NULL && cur->lane_mode[lane] == ACLRT_LANE_CLEANED)) {
        aclrt_model_unlock(m); /* no task of s in the model: nothing to clean */
        return ACL_SUCCESS;
    }
    struct aclrt_model_body *b = aclrt_body_cleaned(cur, lane);
    if (b == NULL) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for the model's tasks without stream %p",
                          stream);
    }
    b->aborts = &m->aborts;
    m->body = b;
    aclrt_model_unlock(m);
    aclrt_model_body_put(cur); /* the model's reference; replays in flight keep theirs */
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_STREAM_ACTIVATE_H */
