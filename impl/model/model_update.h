/*
 * impl/model/model_update.h - task groups and their update
 * (aclmdlRICaptureTaskGrpBegin/End, aclmdlRICaptureTaskUpdateBegin/End).
 * A group names a run of a capture's tasks (capture.h); an update collects
 * the same number of tasks of the same kinds on a stream that is not
 * capturing and makes them the group's: a new body is built under the
 * model's lock (model.h), and each replay keeps the body it was submitted
 * with, so a replay never runs a mix.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_UPDATE_H
#define ACLRT_IMPL_MODEL_MODEL_UPDATE_H

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

/* ------------------------------------------------------------------------
 * Task groups and their update
 * ------------------------------------------------------------------------ */

/* The live group a handle names (capture lock held); NULL: none. */
static struct aclrt_taskgrp *aclrt_taskgrp_find(aclrtTaskGrp handle)
{
    for (uint32_t i = 0; i < aclrt_ntaskgrps; i++)
        if (aclrt_taskgrps[i] == (struct aclrt_taskgrp *)handle)
            return aclrt_taskgrps[i];
    return NULL;
}

/*
 * The origin of the model capture s takes part in (capture lock held), or
 * NULL: s captures no model (no capture, a task group's update, or a
 * build's tasks). A task group is part of such a capture.
 */
static struct aclrt_stream *aclrt_taskgrp_origin(struct aclrt_stream *s)
{
    struct aclrt_stream *o = s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE ? aclrt_capture_origin(s) : NULL;
    return o == NULL || o->capture.update != NULL || aclrt_capture_is_build(o) ? NULL : o;
}

ACLRT_API aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream never captures)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    struct aclrt_stream *o = aclrt_taskgrp_origin(s);
    if (o == NULL) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is not capturing a model (aclmdlRICaptureBegin first); a task group is part "
                          "of a capture",
                          stream);
    }
    if (o->capture.grp_open) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "a task group is already open in the capture of stream %p (groups do not nest; "
                          "aclmdlRICaptureTaskGrpEnd first)",
                          stream);
    }
    o->capture.grp_open = true;
    o->capture.grp_first = o->capture.count;
    aclrt_capture_unlock();
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle (output) is NULL");
    *handle = NULL;
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream never captures)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_taskgrp *g = (struct aclrt_taskgrp *)malloc(sizeof *g);
    if (g == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a task group");
    aclrt_capture_lock();
    struct aclrt_stream *o = aclrt_taskgrp_origin(s);
    if (o == NULL) {
        aclrt_capture_unlock();
        free(g);
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %p is not capturing a model", stream);
    }
    if (!o->capture.grp_open) {
        aclrt_capture_unlock();
        free(g);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "no task group is open in the capture of stream %p (aclmdlRICaptureTaskGrpBegin first)",
                          stream);
    }
    if (!aclrt_capture_grow((void **)&aclrt_taskgrps, &aclrt_taskgrps_cap, aclrt_ntaskgrps, sizeof g)) {
        aclrt_capture_unlock();
        free(g);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a task group");
    }
    struct aclrt_model *m = o->capture.model;
    g->model = m;
    g->model_handle = aclrt_slot_handle(&aclrt_models, &m->hdr); /* alive: not destroyed while captured */
    g->first = o->capture.grp_first;
    g->count = o->capture.count - o->capture.grp_first;
    g->piece = NULL;
    aclrt_taskgrps[aclrt_ntaskgrps++] = g;
    o->capture.grp_open = false;
    aclrt_capture_unlock();
    *handle = (aclrtTaskGrp)g;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (an update needs a stream of its own)", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    struct aclrt_taskgrp *g = aclrt_taskgrp_find(handle);
    struct aclrt_model *m = g != NULL ? g->model : NULL;
    void *mh = g != NULL ? g->model_handle : NULL;
    aclrt_capture_unlock();
    /* Lock order: the model's, then the capture lock. */
    if (m == NULL || !aclrt_model_lock_alive(m, mh))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                          "handle %p is not a live task group (its model destroyed, or garbage)", handle);
    if (m->state != ACLRT_MODEL_READY) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_CAPTURED,
                          "the model of task group %p is still being captured (aclmdlRICaptureEnd first)", handle);
    }
    if (m->parent != NULL) { /* its body is its model's, taken when that model's capture ended */
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "task group %p belongs to a branch of a conditional task, which is not updated", handle);
    }
    aclrt_capture_lock();
    const char *why = NULL;
    aclError code = ACL_SUCCESS;
    if (aclrt_taskgrp_find(handle) != g) {
        code = ACL_ERROR_RT_INVALID_HANDLE;
        why = "the task group is not live";
    } else if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        bool updating = aclrt_capture_origin(s)->capture.update != NULL;
        code = updating ? ACL_ERROR_RT_PARAM_INVALID : ACL_ERROR_RT_STREAM_CAPTURED;
        why = updating ? "it is already updating a task group (aclmdlRICaptureTaskUpdateEnd first)"
                       : "it is capturing a model; a task group is updated from a stream that is not";
    } else if (aclrt_stream_bound(s) != NULL) {
        code = ACL_ERROR_RT_STREAM_MODEL;
        why = "it is bound to a model (aclmdlRIBindStream); only a single-operator stream updates";
    }
    if (why != NULL) {
        aclrt_capture_unlock();
        aclrt_model_unlock(m);
        return aclrt_fail(code, "stream %p cannot update task group %p: %s", stream, handle, why);
    }
    aclrt_capture_start(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED, NULL);
    s->capture.update = g;
    aclrt_capture_unlock();
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

/* The captured body m's body was made from (m locked): its root, or itself. */
static struct aclrt_model_body *aclrt_model_body_root(const struct aclrt_model *m)
{
    return m->body->root != NULL ? m->body->root : m->body;
}

/* The body of m with group g's records taken from its piece, and every other updated group's from its own. */
static struct aclrt_model_body *aclrt_model_body_rebuild(struct aclrt_model *m)
{
    struct aclrt_model_body *root = aclrt_model_body_root(m);
    struct aclrt_model_body *b = (struct aclrt_model_body *)malloc(sizeof *b);
    struct aclrt_task *tasks =
        (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, (size_t)(root->count ? root->count : 1) * sizeof *tasks);
    struct aclrt_model_body **pieces =
        (struct aclrt_model_body **)malloc((size_t)(aclrt_ntaskgrps ? aclrt_ntaskgrps : 1) * sizeof *pieces);
    if (b == NULL || tasks == NULL || pieces == NULL) {
        free(b);
        free(tasks);
        free(pieces);
        return NULL;
    }
    if (root->count > 0)
        memcpy(tasks, root->tasks, (size_t)root->count * sizeof *tasks);
    uint32_t n = 0;
    for (uint32_t i = 0; i < aclrt_ntaskgrps; i++) {
        struct aclrt_taskgrp *g = aclrt_taskgrps[i];
        if (g->model != m || g->piece == NULL)
            continue;
        if (g->count > 0)
            memcpy(tasks + g->first, g->piece->tasks, (size_t)g->count * sizeof *tasks);
        atomic_fetch_add_explicit(&g->piece->refs, 1, memory_order_relaxed); /* the group's reference keeps it */
        pieces[n++] = g->piece;
    }
    atomic_fetch_add_explicit(&root->refs, 1, memory_order_relaxed); /* m->body's reference keeps it */
    /* The root's lanes: an update keeps every task's place, and stream. */
    aclrt_model_body_init(b, tasks, root->count, root->lanes, root->nlanes);
    b->lane_streams = root->lane_streams;
    b->starts = root->starts;
    b->nstarts = root->nstarts;
    b->root = root;
    b->pieces = pieces;
    b->npieces = n;
    return b;
}

ACLRT_API aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL", false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    struct aclrt_capture *c = &s->capture;
    if (c->status == ACL_MODEL_RI_CAPTURE_STATUS_NONE || c->origin != NULL || c->update == NULL) {
        bool capturing = c->status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && aclrt_capture_origin(s)->capture.update == NULL;
        aclrt_capture_unlock();
        if (capturing)
            return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURED,
                              "stream %p is capturing a model, not updating a task group", stream);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "stream %p is not updating a task group (aclmdlRICaptureTaskUpdateBegin first)", stream);
    }
    struct aclrt_taskgrp *g = c->update;
    uint32_t st = c->status;
    struct aclrt_task *tasks;
    uint32_t count;
    aclrt_capture_finish(s, &tasks, &count);
    struct aclrt_model *m = NULL;
    void *mh = NULL;
    if (aclrt_taskgrp_find(g) == g) {
        m = g->model;
        mh = g->model_handle;
    }
    aclrt_capture_unlock();
    if (m == NULL || !aclrt_model_lock_alive(m, mh)) {
        aclrt_capture_drop_tasks(tasks, count);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                          "the model of the task group stream %p updated was destroyed; the update is dropped", stream);
    }
    aclrt_capture_lock();
    const char *why = NULL;
    uint32_t at = 0, want = 0;
    const struct aclrt_model_body *root = aclrt_model_body_root(m);
    if (aclrt_taskgrp_find(g) != g)
        why = "its model was destroyed";
    else if ((want = g->count), st == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        why = "a call in it could not be kept";
    else if (count != want)
        why = "it has another number of tasks than the group";
    else
        for (at = 0; at < count; at++)
            if (tasks[at].kind != root->tasks[g->first + at].kind) {
                why = "a task is of another kind than the group's task at its place";
                break;
            }
    struct aclrt_model_body *piece = NULL, *old_piece = NULL, *nb = NULL, *old_body = NULL;
    if (why == NULL) {
        piece = (struct aclrt_model_body *)malloc(sizeof *piece);
        if (piece == NULL) {
            why = "out of memory";
        } else {
            aclrt_model_body_init(piece, tasks, count, NULL, 0);
            old_piece = g->piece;
            g->piece = piece;
            nb = aclrt_model_body_rebuild(m);
            if (nb == NULL) {
                g->piece = old_piece;
                piece->tasks = NULL;
                piece->count = 0;
                free(piece);
                piece = old_piece = NULL;
                why = "out of memory";
            } else {
                old_body = m->body;
                nb->aborts = &m->aborts;
                m->body = nb; /* replays submitted from now on run it; those before keep theirs */
            }
        }
    }
    aclrt_capture_unlock();
    aclrt_model_unlock(m);
    if (why != NULL) {
        aclrt_capture_drop_tasks(tasks, count);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the update on stream %p does not replace task group %p: %s (%u tasks updated, the group "
                          "has %u); the group keeps its tasks",
                          stream, (void *)g, why, count, want);
    }
    aclrt_model_body_put(old_body);
    if (old_piece != NULL)
        aclrt_model_body_put(old_piece);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_UPDATE_H */
