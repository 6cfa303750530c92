/*
 * impl/model/model_params.h - a captured model's tasks read and changed
 * (aclmdlRITaskGetParams, aclmdlRITaskSetParams, aclmdlRITaskDisable,
 * aclmdlRIKernelTaskGetAttribute, aclmdlRIUpdate).
 *
 * A change is staged: aclmdlRITaskSetParams and aclmdlRITaskDisable keep
 * an edit in the model (a new record for the task's place, or a no-op) and
 * mark the model as updating, which refuses its execution (as the runtime
 * does) until aclmdlRIUpdate. The update makes a new body: a deep copy of
 * the current one (each kernel's argument copy duplicated, its binary
 * counted once more, each condition referenced once more) with the edits
 * in place; it becomes the model's captured body (the root a later
 * task-group update starts from), and replays submitted before keep the
 * body they hold. A failed change leaves the model faulty: aclmdlRIUpdate
 * then fails and the model is not executed again.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_PARAMS_H
#define ACLRT_IMPL_MODEL_MODEL_PARAMS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../memory/memory.h"
#include "../sync/event.h"
#include "../kernel/binary.h"
#include "../kernel/kernel_launch.h"
#include "cond.h"
#include "model.h"
#include "model_tasks.h"

/* The edit staged for step `step` of m (m locked), or NULL. */
static struct aclrt_model_edit *aclrt_model_edit_at(struct aclrt_model *m, uint32_t step)
{
    for (uint32_t i = 0; i < m->nedits; i++)
        if (m->edits[i].step == step)
            return &m->edits[i];
    return NULL;
}

/* The record a task handle names now: its staged new record, else its body's (also when disabled) (m locked). */
static const struct aclrt_task *aclrt_model_task_now(struct aclrt_model *m, uint32_t step)
{
    const struct aclrt_model_edit *e = aclrt_model_edit_at(m, step);
    return e != NULL && e->record != NULL ? e->record : &m->body->tasks[step];
}

/*
 * Why model m's tasks cannot be changed, or NULL (m locked): a built
 * model's or a branch's are not (ACL_ERROR_RT_FEATURE_NOT_SUPPORT: a
 * branch's body is its model's, taken at that model's capture end), and a
 * faulty model's are not any more (ACL_ERROR_RT_MODEL_UPDATE_FAILED).
 */
static const char *aclrt_model_unchangeable(const struct aclrt_model *m, aclError *code)
{
    *code = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    if (m->built)
        return "it is a built model; only a captured model's tasks are changed";
    if (m->parent != NULL)
        return "it is a branch of a conditional task, which runs as its model captured it";
    *code = ACL_ERROR_RT_MODEL_UPDATE_FAILED;
    if (m->update == ACLRT_MODEL_UPDATE_FAULT)
        return "a change failed and left it faulty (destroy it)";
    return NULL;
}

/* A captured model's task, its model locked and ready for a change. */
static aclError aclrt_model_task_for_change(aclmdlRITask task, struct aclrt_model **m, uint32_t *step)
{
    aclError rc = aclrt_model_task_resolve(task, m, step);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = aclrt_model_unchangeable(*m, &rc);
    if (why != NULL) {
        aclrt_model_unlock(*m);
        return aclrt_fail(rc, "the tasks of task %p's model are not changed: %s", task, why);
    }
    return ACL_SUCCESS;
}

/* Stage `record` (moved in; NULL: disable) for step of m (m locked). False: out of memory. */
static bool aclrt_model_stage(struct aclrt_model *m, uint32_t step, struct aclrt_task *record)
{
    struct aclrt_model_edit *e = aclrt_model_edit_at(m, step);
    if (e == NULL) {
        if (!aclrt_capture_grow((void **)&m->edits, &m->edits_cap, m->nedits, sizeof *m->edits))
            return false;
        e = &m->edits[m->nedits++];
        e->step = step;
    } else if (e->record != NULL) {
        aclrt_capture_drop_tasks(e->record, 1);
    }
    e->record = record;
    m->update = ACLRT_MODEL_UPDATING; /* never faulty here: a faulty model takes no change */
    return true;
}

ACLRT_API aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    ACLRT_ENTER();
    if (params == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "params (output) is NULL");
    struct aclrt_model *m;
    uint32_t step;
    aclError rc = aclrt_model_task_resolve(task, &m, &step);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_task *t = aclrt_model_task_now(m, step);
    memset(params, 0, sizeof *params);
    params->type = aclrt_model_task_type(t->kind->id);
    switch (t->kind->id) {
    case ACLRT_TASK_KERNEL: {
        aclmdlRIKernelTaskParams *k = &params->kernelTaskParams;
        k->funcHandle = t->u.kernel.handle;
        k->args = t->u.kernel.args;
        k->isHostArgs = t->u.kernel.owned;
        k->argsSize = t->u.kernel.args_size;
        k->numBlocks = t->u32;
        break;
    }
    case ACLRT_TASK_MODEL_RECORD:
        params->eventRecordTaskParams.event = aclrt_handle_encode(
            ACLRT_KIND_EVENT, aclrt_slot_index(&t->u.mark.event->hdr), t->u.mark.generation >> 1);
        params->eventRecordTaskParams.eventFlag =
            ACLRT_EVENT_INFO_FLAGS(atomic_load_explicit(&t->u.mark.event->info, memory_order_relaxed));
        params->eventRecordTaskParams.recordFlag = ACL_EVENT_RECORD_EXTERNAL;
        break;
    case ACLRT_TASK_MODEL_WAIT:
        params->eventWaitTaskParams.event = aclrt_handle_encode(
            ACLRT_KIND_EVENT, aclrt_slot_index(&t->u.wait.from.event->hdr), t->u.wait.from.generation >> 1);
        params->eventWaitTaskParams.eventFlag =
            ACLRT_EVENT_INFO_FLAGS(atomic_load_explicit(&t->u.wait.from.event->info, memory_order_relaxed));
        params->eventWaitTaskParams.waitFlag = ACL_EVENT_WAIT_EXTERNAL;
        break;
    default:
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "task %p is a %s; only kernels and replayed event records and waits have parameters", task,
                          t->kind->name);
    }
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

/*
 * A kernel's new record from params (on the model's device): it holds a
 * count on the function's binary and, for host arguments, its own copy.
 */
static aclError aclrt_model_kernel_record(const aclmdlRIKernelTaskParams *k, struct aclrt_device *dev,
                                          struct aclrt_task **out)
{
    if (k->funcHandle == NULL || k->args == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "kernelTaskParams.%s is NULL",
                          k->funcHandle == NULL ? "funcHandle" : "args");
    uint32_t timeout_ms;
    aclError rc = aclrt_kernel_check_sizes(k->numBlocks, k->argsSize);
    if (rc != ACL_SUCCESS || (rc = aclrt_kernel_cfg(k->cfg, &timeout_ms)) != ACL_SUCCESS)
        return rc;
    if (!k->isHostArgs && aclrt_mem_device_of(k->args, k->argsSize) != dev)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "args %p is not %zu bytes of device memory of the model's device (isHostArgs 0)", k->args,
                          k->argsSize);
    struct aclrt_task *t = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, sizeof *t);
    void *copy = k->isHostArgs ? malloc(k->argsSize) : NULL;
    if (t == NULL || (k->isHostArgs && copy == NULL)) {
        free(t);
        free(copy);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a kernel task's parameters");
    }
    aclrtxHostKernel fn = NULL;
    struct aclrt_binary *b = NULL;
    if ((rc = aclrt_function_acquire(k->funcHandle, &fn, &b)) != ACL_SUCCESS ||
        (rc = aclrt_function_args_fit(b, fn, (uint32_t)k->argsSize)) != ACL_SUCCESS) {
        if (rc != ACL_SUCCESS && b != NULL)
            aclrt_binary_done(b);
        free(t);
        free(copy);
        return rc;
    }
    if (copy != NULL)
        memcpy(copy, k->args, k->argsSize);
    memset(t, 0, sizeof *t);
    t->kind = &aclrt_kind_kernel;
    t->u32 = k->numBlocks;
    t->tid = aclrt_thread_tid();
    t->u.kernel.fn = fn;
    t->u.kernel.args = copy != NULL ? copy : k->args;
    t->u.kernel.handle = k->funcHandle;
    t->u.kernel.binary = b;
    t->u.kernel.args_size = (uint32_t)k->argsSize;
    t->u.kernel.owned = copy != NULL;
    t->u.kernel.timeout_ms = timeout_ms;
    *out = t;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    ACLRT_ENTER();
    if (params == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "params is NULL");
    struct aclrt_model *m;
    uint32_t step;
    aclError rc = aclrt_model_task_for_change(task, &m, &step);
    if (rc != ACL_SUCCESS)
        return rc;
    aclmdlRITaskType now = aclrt_model_task_type(aclrt_model_task_now(m, step)->kind->id);
    struct aclrt_task *record = NULL;
    if (params->type != ACL_MODEL_RI_TASK_KERNEL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "params->type %d: only a kernel's parameters are changed (ACL_MODEL_RI_TASK_KERNEL)",
                        (int)params->type);
    else if (now != ACL_MODEL_RI_TASK_KERNEL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %p is not a kernel", task);
    else if ((rc = aclrt_model_kernel_record(&params->kernelTaskParams, m->ctx->device, &record)) == ACL_SUCCESS &&
             !aclrt_model_stage(m, step, record)) {
        aclrt_capture_drop_tasks(record, 1);
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a task change");
    }
    if (rc != ACL_SUCCESS)
        m->update = ACLRT_MODEL_UPDATE_FAULT; /* as the runtime: a failed change leaves the model faulty */
    aclrt_model_unlock(m);
    return rc;
}

ACLRT_API aclError aclmdlRITaskDisable(aclmdlRITask task)
{
    ACLRT_ENTER();
    struct aclrt_model *m;
    uint32_t step;
    aclError rc = aclrt_model_task_for_change(task, &m, &step);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_task *t = aclrt_model_task_now(m, step);
    if (aclrt_model_task_type(t->kind->id) == ACL_MODEL_RI_TASK_DEFAULT) {
        m->update = ACLRT_MODEL_UPDATE_FAULT;
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "task %p is a %s (ACL_MODEL_RI_TASK_DEFAULT), which is not disabled; the model is faulty "
                          "now",
                          task, t->kind->name);
    }
    if (!aclrt_model_stage(m, step, NULL)) {
        m->update = ACLRT_MODEL_UPDATE_FAULT;
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a task change");
    }
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
                                                  aclrtLaunchKernelAttrValue *attrValue)
{
    ACLRT_ENTER();
    if (attrValue == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attrValue (output) is NULL");
    if ((int)attrId < ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE || (int)attrId > ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attrId %d is not an aclrtLaunchKernelAttrId", (int)attrId);
    struct aclrt_model *m;
    uint32_t step;
    aclError rc = aclrt_model_task_resolve(task, &m, &step);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_task *t = aclrt_model_task_now(m, step);
    bool kernel = t->kind->id == ACLRT_TASK_KERNEL;
    uint32_t timeout_ms = kernel ? t->u.kernel.timeout_ms : 0;
    aclrt_model_unlock(m);
    if (!kernel)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "task %p is not a kernel", task);
    memset(attrValue, 0, sizeof *attrValue);
    if (attrId == ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT) {
        uint32_t s = timeout_ms / 1000 + (timeout_ms % 1000 != 0);
        attrValue->timeout = (uint16_t)(s > UINT16_MAX ? UINT16_MAX : s);
    } else if (attrId == ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US) {
        uint64_t us = (uint64_t)timeout_ms * 1000u;
        attrValue->timeoutUs.timeoutLow = (uint32_t)us;
        attrValue->timeoutUs.timeoutHigh = (uint32_t)(us >> 32);
    } /* the others (engine, block offset, UB size, ...) have no value here: 0 */
    return ACL_SUCCESS;
}

/* A deep copy of one captured record into dst: what it holds is held once more. */
static void aclrt_model_record_dup(struct aclrt_task *dst, const struct aclrt_task *src, bool *ok)
{
    *dst = *src;
    if (src->kind->id == ACLRT_TASK_KERNEL) {
        if (src->u.kernel.owned) {
            void *copy = malloc(src->u.kernel.args_size ? src->u.kernel.args_size : 1);
            if (copy == NULL) {
                *ok = false;
                dst->kind = &aclrt_kind_nop; /* nothing to drop */
                return;
            }
            memcpy(copy, src->u.kernel.args, src->u.kernel.args_size);
            dst->u.kernel.args = copy;
        }
        if (src->u.kernel.binary != NULL)
            aclrt_binary_use(src->u.kernel.binary);
    } else if (src->kind->id == ACLRT_TASK_COND) {
        atomic_fetch_add_explicit(&src->u.cond.cond->refs, 1, memory_order_relaxed); /* the copy's; src keeps it */
    }
}

/* m's body with its edits in place, as a body of its own (m locked), or NULL: out of memory. */
static struct aclrt_model_body *aclrt_model_body_edited(struct aclrt_model *m)
{
    const struct aclrt_model_body *cur = m->body;
    struct aclrt_model_body *b = (struct aclrt_model_body *)malloc(sizeof *b);
    size_t n = cur->count ? cur->count : 1;
    struct aclrt_task *tasks = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, n * sizeof *tasks);
    uint32_t *lanes = (uint32_t *)malloc(n * sizeof *lanes);
    struct aclrt_cond **starts =
        cur->nstarts ? (struct aclrt_cond **)malloc((size_t)cur->nstarts * sizeof *starts) : NULL;
    if (b == NULL || tasks == NULL || lanes == NULL || (cur->nstarts && starts == NULL)) {
        free(b);
        free(tasks);
        free(lanes);
        free(starts);
        return NULL;
    }
    bool ok = true;
    for (uint32_t i = 0; i < cur->count; i++) {
        const struct aclrt_model_edit *e = aclrt_model_edit_at(m, i);
        if (e == NULL) {
            aclrt_model_record_dup(&tasks[i], &cur->tasks[i], &ok);
        } else if (e->record == NULL) { /* disabled: a no-op holds its place */
            memset(&tasks[i], 0, sizeof tasks[i]);
            tasks[i].kind = &aclrt_kind_nop;
            tasks[i].tid = cur->tasks[i].tid;
        } else {
            aclrt_model_record_dup(&tasks[i], e->record, &ok);
        }
    }
    if (!ok) {
        aclrt_capture_drop_tasks(tasks, cur->count);
        free(lanes);
        free(starts);
        free(b);
        return NULL;
    }
    memcpy(lanes, cur->lanes, (size_t)cur->count * sizeof *lanes);
    if (cur->nstarts)
        memcpy(starts, cur->starts, (size_t)cur->nstarts * sizeof *starts); /* kept by the copied tasks */
    aclrt_model_body_init(b, tasks, cur->count, lanes, cur->nlanes);
    b->starts = starts;
    b->nstarts = cur->nstarts;
    return b;
}

ACLRT_API aclError aclmdlRIUpdate(aclmdlRI modelRI)
{
    ACLRT_ENTER();
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    const char *why = m->state != ACLRT_MODEL_READY && !m->built ? "its capture has not ended"
                                                                  : aclrt_model_unchangeable(m, &rc);
    if (why != NULL) {
        if (m->state != ACLRT_MODEL_READY && !m->built)
            rc = ACL_ERROR_RT_MODEL_UPDATE_FAILED;
        aclrt_model_unlock(m);
        return aclrt_fail(rc, "modelRI %p cannot be updated: %s", modelRI, why);
    }
    if (m->update == 0) {
        aclrt_model_unlock(m);
        return ACL_SUCCESS; /* nothing staged */
    }
    struct aclrt_model_body *nb = aclrt_model_body_edited(m);
    if (nb == NULL) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for the update of modelRI %p", modelRI);
    }
    nb->life = aclrt_model_life_get(m); /* the destroy callbacks also wait for replays of the old body */
    struct aclrt_model_body *old = m->body;
    struct aclrt_model_edit *edits = m->edits;
    uint32_t nedits = m->nedits;
    nb->aborts = &m->aborts;
    m->body = nb; /* replays submitted from now on run it; those before keep theirs */
    m->edits = NULL;
    m->nedits = m->edits_cap = 0;
    m->update = 0;
    aclrt_model_unlock(m);
    aclrt_model_edits_free(edits, nedits);
    aclrt_model_body_put(old);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_PARAMS_H */
