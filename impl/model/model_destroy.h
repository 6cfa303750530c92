/*
 * impl/model/model_destroy.h - the end of a model: its retirement
 * (aclrt_model_retire) and aclmdlRIDestroy.
 *
 * A retirement ends the model's life at once: an explicit build lets go
 * of its streams, a branch still captured ends its capture, the destroy
 * callbacks go to the model's life (they run when its last body goes),
 * its staged changes and task groups go, and its slot is freed. Its body
 * goes when no replay holds it. The model's conditions, and the branches
 * of its conditional tasks, go with it (cond.h).
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_DESTROY_H
#define ACLRT_IMPL_MODEL_MODEL_DESTROY_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../stream/stream_capture.h"
#include "cond.h"
#include "model.h"

/*
 * Take the task groups of model m out of the registry (capture lock held):
 * the list returned goes to aclrt_taskgrps_free, outside the lock (a
 * piece's last reference may drop kernels, unloading a binary).
 */
static struct aclrt_taskgrp *aclrt_taskgrps_remove(struct aclrt_model *m)
{
    struct aclrt_taskgrp *gone = NULL;
    for (uint32_t i = 0; i < aclrt_ntaskgrps;) {
        struct aclrt_taskgrp *g = aclrt_taskgrps[i];
        if (g->model != m) {
            i++;
            continue;
        }
        aclrt_taskgrps[i] = aclrt_taskgrps[--aclrt_ntaskgrps];
        g->next_gone = gone;
        gone = g;
    }
    return gone;
}

/* Free task groups taken out of the registry, and their pieces (no lock held). */
static void aclrt_taskgrps_free(struct aclrt_taskgrp *gone)
{
    while (gone != NULL) {
        struct aclrt_taskgrp *g = gone;
        gone = g->next_gone;
        if (g->piece != NULL)
            aclrt_model_body_put(g->piece); /* the last reference after an aclmdlRIUpdate took the model's body */
        free(g);
    }
}

/*
 * Let go of an explicit build's streams (the caller holds the model's lock,
 * so no stream binds meanwhile): each is unbound, and one still collecting
 * stops, its tasks dropped (outside the capture lock: a drop may unload a
 * binary). Returns the tasks handed over (*tasks, *count).
 */
static void aclrt_model_build_release(struct aclrt_model *m, struct aclrt_task **tasks, uint32_t *count)
{
    struct aclrt_build *b = &m->build;
    for (;;) {
        struct aclrt_task *t = NULL;
        uint32_t n = 0;
        aclrt_capture_lock();
        if (b->nstreams == 0)
            break; /* still locked */
        aclrt_model_unbind_stream(m, b->streams[b->nstreams - 1], &t, &n);
        aclrt_capture_unlock();
        aclrt_capture_drop_tasks(t, n);
    }
    free(b->streams);
    free(b->lanes);
    free(b->handed);
    free(b->activated);
    *tasks = b->tasks;
    *count = b->count;
    *b = (struct aclrt_build){0};
    aclrt_capture_unlock();
}

/* End a model's life (the caller holds its lock, which this releases); its body goes when no replay holds it. */
ACLRT_INTERNAL void aclrt_model_retire(struct aclrt_model *m)
{
    struct aclrt_task *pending = NULL;
    uint32_t npending = 0;
    if (m->built)
        aclrt_model_build_release(m, &pending, &npending);
    aclrt_capture_drop_tasks(pending, npending);
    if (m->state == ACLRT_MODEL_CAPTURING && m->parent != NULL) {
        /* A branch retired with its model while its stream still captures it: the capture ends here. */
        aclrt_capture_lock();
        if (aclrt_model_captured(m))
            aclrt_capture_finish(m->stream, &pending, &npending);
        aclrt_capture_unlock();
        aclrt_capture_drop_tasks(pending, npending);
    }
    struct aclrt_model_body *b = m->body;
    struct aclrt_cond **conds = m->conds;
    uint32_t nconds = m->nconds;
    struct aclrt_model_life *life = m->life; /* the callbacks go to it: they run when its last body goes */
    life->cbs = m->destroy_cbs;
    life->ncbs = m->ndestroy_cbs;
    m->life = NULL;
    m->destroy_cbs = NULL;
    m->ndestroy_cbs = m->destroy_cbs_cap = 0;
    aclrt_model_edits_free(m->edits, m->nedits);
    m->edits = NULL;
    m->nedits = m->edits_cap = 0;
    m->update = 0;
    m->body = NULL;
    m->stream = NULL;
    m->parent = NULL;
    m->conds = NULL;
    m->nconds = m->conds_cap = 0;
    m->name_len = 0;
    m->name[0] = '\0';
    aclrt_capture_lock();
    struct aclrt_taskgrp *groups = aclrt_taskgrps_remove(m);
    aclrt_capture_unlock();
    aclrt_table_retire(&m->hdr);
    aclrt_model_unlock(m);
    aclrt_table_free(&aclrt_models, &m->hdr);
    aclrt_taskgrps_free(groups);
    if (b != NULL)
        aclrt_model_body_put(b);
    aclrt_model_life_put(life); /* no body left: the callbacks run now */
    /* The model's conditions, and the branches of its conditional tasks, go with it. */
    for (uint32_t i = 0; i < nconds; i++) {
        struct aclrt_cond *c = conds[i];
        for (uint32_t k = 0; c->used && k < c->size; k++) {
            struct aclrt_model *sub = aclrt_model_lock_handle(c->subs[k]);
            if (sub != NULL)
                aclrt_model_retire(sub);
        }
        aclrt_cond_put(c);
    }
    free(conds);
}

ACLRT_API aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    ACLRT_ENTER();
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (m->parent != NULL) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "modelRI %p is a branch of a conditional task (aclmdlRIAddCondTask); it is destroyed with "
                          "its model",
                          modelRI);
    }
    if (m->state == ACLRT_MODEL_CAPTURING) {
        /* Refused while its stream still captures it; a capture that went with its stream left it behind. */
        aclrt_capture_lock();
        bool building = aclrt_model_captured(m);
        aclrt_capture_unlock();
        if (building) {
            aclrt_model_unlock(m);
            return aclrt_fail(ACL_ERROR_RT_MODEL_CAPTURED,
                              "modelRI %p is being captured; end the capture (aclmdlRICaptureEnd) first", modelRI);
        }
    }
    aclrt_model_retire(m);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_DESTROY_H */
