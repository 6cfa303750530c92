/*
 * impl/model/model_subscribe.h - op subscription of a model
 * (aclprofModelSubscribe, aclprofModelUnSubscribe): which replays write op
 * descriptors (prof_subscribe.h), and what they write.
 *
 * A subscription names a live model by its id (aclmdlRIGetId) and keeps
 * its handle: a later model in the same slot is not subscribed. A replay's
 * submission (model_replay.h) takes a reference to its model's
 * subscription, if any (one relaxed load when there is none); the replay
 * then times each of its steps and writes one descriptor per step that
 * completes, and lets the reference go when it ends or is dropped. So
 * aclprofModelUnSubscribe returns at once, and the fd is closed when the
 * last replay holding the subscription is done.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_SUBSCRIBE_H
#define ACLRT_IMPL_MODEL_MODEL_SUBSCRIBE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../prof/prof_trace.h"
#include "../prof/prof_subscribe.h"
#include "../kernel/binary.h"
#include "model.h"

/* A reference to the subscription of model m (locked), or NULL. */
ACLRT_INTERNAL struct aclrt_prof_sub *aclrt_model_sub_take(struct aclrt_model *m)
{
    if (ACLRT_LIKELY(atomic_load_explicit(&aclrt_prof_subs.count, memory_order_relaxed) == 0))
        return NULL;
    void *h = aclrt_slot_handle(&aclrt_models, &m->hdr);
    struct aclrt_prof_sub *found = NULL;
    pthread_mutex_lock(&aclrt_prof_subs.lock);
    for (struct aclrt_prof_sub *it = aclrt_prof_subs.subs; it != NULL && found == NULL; it = it->next)
        if (it->model == h) {
            atomic_fetch_add_explicit(&it->refs, 1, memory_order_relaxed);
            found = it;
        }
    pthread_mutex_unlock(&aclrt_prof_subs.lock);
    return found;
}

/* Step i of a replay (its captured record `step`) completed, begun at begin_ns: its descriptor. */
ACLRT_INTERNAL void aclrt_model_sub_note(const struct aclrt_prof_sub *sub, uint32_t i, const struct aclrt_task *step,
                                         uint64_t begin_ns, const struct aclrt_stream *s)
{
    uint64_t end_ns = aclrt_now_ns();
    char name[ACL_PROF_MAX_OP_NAME_LEN];
    name[0] = '\0';
    if (step->kind->id == ACLRT_TASK_KERNEL) {
        pthread_mutex_lock(&aclrt_kernels_lock);
        const struct aclrt_function *f =
            (const struct aclrt_function *)aclrt_table_lookup(&aclrt_functions, step->u.kernel.handle);
        if (f != NULL && f->name != NULL)
            snprintf(name, sizeof name, "%s", f->name);
        pthread_mutex_unlock(&aclrt_kernels_lock);
    }
    if (name[0] == '\0')
        snprintf(name, sizeof name, "%s %u", step->kind->name, i);
    aclrt_prof_sub_write(sub, i, step->kind->name, name, begin_ns, end_ns, s->device->id);
}

ACLRT_API aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig)
{
    ACLRT_ENTER();
    if (profSubscribeConfig == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "profSubscribeConfig is NULL");
    /* The model, by id: its slot, alive, and its handle. */
    void *h = NULL;
    if (modelId < atomic_load_explicit(&aclrt_models.high_water, memory_order_acquire)) {
        struct aclrt_slot *slot = aclrt_table_slot(&aclrt_models, modelId);
        if (slot != NULL && (atomic_load_explicit(&slot->generation, memory_order_acquire) & 1u) != 0) {
            void *cand = aclrt_slot_handle(&aclrt_models, slot);
            struct aclrt_model *m = aclrt_model_lock_handle(cand);
            if (m != NULL) {
                if (m->parent == NULL)
                    h = cand;
                aclrt_model_unlock(m);
            }
        }
    }
    if (h == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_MODEL_ID, "model id %u is not a live model (aclmdlRIGetId)", modelId);
    /* Lock order: the profiler's, then the subscriptions'. */
    pthread_mutex_lock(&aclrt_prof.lock);
    pthread_mutex_lock(&aclrt_prof_subs.lock);
    aclError rc = ACL_SUCCESS;
    struct aclrt_prof_sub *sub = NULL;
    struct aclrt_prof_sink *sink = NULL;
    if (!aclrt_prof_sub_config_live(profSubscribeConfig)) {
        rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "%p is not a subscription configuration (or was destroyed)",
                        (const void *)profSubscribeConfig);
        goto out;
    }
    if (aclrt_prof.inited) {
        rc = aclrt_fail(ACL_ERROR_PROF_API_CONFLICT,
                        "profiling is initialized (aclprofInit): subscriptions come after aclprofFinalize");
        goto out;
    }
    for (const struct aclrt_prof_sub *it = aclrt_prof_subs.subs; it != NULL; it = it->next) {
        if (it->model == h || it->model_id == modelId) {
            rc = aclrt_fail(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, "model %u is subscribed already", modelId);
            goto out;
        }
        if (it->sink->fd == profSubscribeConfig->fd)
            sink = it->sink;
    }
    sub = (struct aclrt_prof_sub *)calloc(1, sizeof *sub);
    if (sub == NULL) {
        rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory subscribing model %u", modelId);
        goto out;
    }
    if (sink == NULL) {
        sink = (struct aclrt_prof_sink *)calloc(1, sizeof *sink);
        if (sink == NULL) {
            free(sub);
            rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory subscribing model %u", modelId);
            goto out;
        }
        sink->fd = profSubscribeConfig->fd;
    }
    atomic_fetch_add_explicit(&sink->refs, 1, memory_order_relaxed);
    atomic_init(&sub->refs, 1); /* the table's */
    sub->sink = sink;
    sub->time_info = profSubscribeConfig->time_info != 0;
    sub->model = h;
    sub->model_id = modelId;
    sub->next = aclrt_prof_subs.subs;
    aclrt_prof_subs.subs = sub;
    atomic_fetch_add_explicit(&aclrt_prof_subs.count, 1, memory_order_relaxed);
out:
    pthread_mutex_unlock(&aclrt_prof_subs.lock);
    pthread_mutex_unlock(&aclrt_prof.lock);
    return rc;
}

ACLRT_API aclError aclprofModelUnSubscribe(uint32_t modelId)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_prof_subs.lock);
    struct aclrt_prof_sub **at = &aclrt_prof_subs.subs;
    while (*at != NULL && (*at)->model_id != modelId)
        at = &(*at)->next;
    struct aclrt_prof_sub *sub = *at;
    if (sub != NULL) {
        *at = sub->next;
        atomic_fetch_sub_explicit(&aclrt_prof_subs.count, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&aclrt_prof_subs.lock);
    if (sub == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_MODEL_ID, "model %u is not subscribed", modelId);
    aclrt_prof_sub_put(sub); /* the table's reference: the fd closes now, or when the last replay holding it ends */
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_SUBSCRIBE_H */
