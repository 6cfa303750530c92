/*
 * impl/model/model_query.h - a model's abort, name, id and destroy callbacks
 * (aclmdlRIAbort, aclmdlRISetName, aclmdlRIGetName, aclmdlRIGetId,
 * aclmdlRIDestroyRegisterCallback, aclmdlRIDestroyUnregisterCallback).
 *
 * aclmdlRIAbort counts on the model (struct aclrt_model's `aborts`); a
 * replay remembers the count at its submission and, before each step,
 * compares (one relaxed load, no lock: model_replay.h aclrt_model_run). A replay
 * submitted before the abort and not finished drops its remaining steps and
 * counts as done without an error, so its stream goes on with what follows;
 * a step already running finishes. Replays submitted after the abort run
 * whole. The count lives in the model's slot and is never reset, so a
 * replay that outlives its model never sees the slot's next life change it.
 *
 * The id is the model's place in the model table: unique among live models.
 *
 * Destroy callbacks are kept by function (a function is registered once,
 * as the runtime keeps them) and run, in registration order, once the
 * model is destroyed and no replay of it is left: on the thread of
 * aclmdlRIDestroy when none is pending, else on the runtime thread that
 * ends the last replay (model.h: struct aclrt_model_life). So what the model's
 * tasks use may be freed from a callback.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_QUERY_H
#define ACLRT_IMPL_MODEL_MODEL_QUERY_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "model.h"

ACLRT_API aclError aclmdlRIAbort(aclmdlRI modelRI)
{
    ACLRT_ENTER();
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Under the model's lock, which a submission holds while it reads the count. */
    atomic_fetch_add_explicit(&m->aborts, 1, memory_order_relaxed);
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
    ACLRT_ENTER();
    if (name == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name is NULL");
    size_t len = strnlen(name, ACLRT_MODEL_NAME_MAX + 1);
    if (len > ACLRT_MODEL_NAME_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name is longer than %u bytes", ACLRT_MODEL_NAME_MAX);
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    memcpy(m->name, name, len);
    m->name[len] = '\0';
    m->name_len = (uint32_t)len;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
    ACLRT_ENTER();
    if (name == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name (output) is NULL");
    if (maxLen == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxLen is 0");
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t len = m->name_len;
    if (len >= maxLen) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxLen %u cannot hold the name (%u bytes and its NUL)",
                          (unsigned)maxLen, (unsigned)len);
    }
    memcpy(name, m->name, len);
    name[len] = '\0';
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
    ACLRT_ENTER();
    if (modelRIId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRIId (output) is NULL");
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    *modelRIId = aclrt_slot_index(&m->hdr);
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

/* The place of func among m's destroy callbacks (m locked); m->ndestroy_cbs: none. */
static uint32_t aclrt_model_destroy_cb_find(const struct aclrt_model *m, aclrtCallback func)
{
    uint32_t i = 0;
    while (i < m->ndestroy_cbs && m->destroy_cbs[i].fn != func)
        i++;
    return i;
}

ACLRT_API aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func, void *userData)
{
    ACLRT_ENTER();
    if (func == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "func is NULL");
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_model_destroy_cb_find(m, func) < m->ndestroy_cbs) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "func %p is registered already for modelRI %p (a function is registered once)",
                          (void *)(uintptr_t)func, modelRI);
    }
    if (!aclrt_capture_grow((void **)&m->destroy_cbs, &m->destroy_cbs_cap, m->ndestroy_cbs, sizeof *m->destroy_cbs)) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a destroy callback");
    }
    m->destroy_cbs[m->ndestroy_cbs++] = (struct aclrt_destroy_cb){func, userData};
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
    ACLRT_ENTER();
    if (func == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "func is NULL");
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t i = aclrt_model_destroy_cb_find(m, func);
    if (i == m->ndestroy_cbs) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "func %p is not registered for modelRI %p",
                          (void *)(uintptr_t)func, modelRI);
    }
    memmove(&m->destroy_cbs[i], &m->destroy_cbs[i + 1], (size_t)(m->ndestroy_cbs - i - 1) * sizeof *m->destroy_cbs);
    m->ndestroy_cbs--;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_QUERY_H */
