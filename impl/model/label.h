/*
 * impl/model/label.h - labels (aclrtCreateLabel, aclrtCreateLabelList,
 * aclrtSetLabel, aclrtSwitchLabelByIndex, aclrtDestroyLabel,
 * aclrtDestroyLabelList): places and jumps in a model built explicitly
 * (model_build.h). aclrtSetLabel adds a no-op step to the bound stream's
 * tasks; a switch step holds the index's address and a copy of the list;
 * aclmdlRIBuildEnd resolves the labels to step numbers, and the replay
 * (model_replay.h) goes on after the label the index picks.
 */
#ifndef ACLRT_IMPL_MODEL_LABEL_H
#define ACLRT_IMPL_MODEL_LABEL_H

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
#include "model_args.h"
#include "spin_lock.h"

/* ------------------------------------------------------------------------
 * Labels: places among a built model's steps, and switches that jump there
 * ------------------------------------------------------------------------ */

/*
 * A label is only a name: aclrtSetLabel puts a step holding its handle
 * among a bound stream's tasks, aclrtSwitchLabelByIndex a step holding
 * copies of a list's handles; aclmdlRIBuildEnd turns those handles into
 * the step numbers of the labels, so labels and lists may go afterwards.
 */
struct aclrt_label {
    struct aclrt_slot hdr;
    _Atomic bool lock; /* over the slot's life: one destroy of two concurrent ones frees it */
};

struct aclrt_label_list {
    struct aclrt_slot hdr;
    _Atomic bool lock; /* over the fields below and the slot's life */
    uint32_t count;
    void **labels; /* label handles */
};

#define ACLRT_LABEL_LIST_MAX 65535u

static struct aclrt_table aclrt_labels = ACLRT_TABLE_INIT(ACLRT_KIND_LABEL, struct aclrt_label, "label");
static struct aclrt_table aclrt_label_lists =
    ACLRT_TABLE_INIT(ACLRT_KIND_LABEL_LIST, struct aclrt_label_list, "label list");

ACLRT_INLINE void aclrt_label_list_lock(struct aclrt_label_list *l)
{
    aclrt_spin_lock(&l->lock);
}

ACLRT_INLINE void aclrt_label_list_unlock(struct aclrt_label_list *l)
{
    aclrt_spin_unlock(&l->lock);
}

/* The live label list a handle names, locked. */
static aclError aclrt_label_list_get(aclrtLabelList handle, struct aclrt_label_list **out)
{
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "labelList is NULL");
    struct aclrt_label_list *l = (struct aclrt_label_list *)aclrt_table_lookup(&aclrt_label_lists, handle);
    if (l != NULL) {
        aclrt_label_list_lock(l);
        if ((struct aclrt_label_list *)aclrt_table_lookup(&aclrt_label_lists, handle) == l) {
            *out = l;
            return ACL_SUCCESS;
        }
        aclrt_label_list_unlock(l);
    }
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                      "labelList %p is not a live label list (destroyed, stale or garbage)", handle);
}

static int aclrt_label_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)t, (void)blk;
    return ACL_SUCCESS; /* a place: the replay (aclrt_model_run) jumps to it */
}

static void aclrt_label_switch_drop(struct aclrt_task *t)
{
    free(t->u.label_switch.to);
    t->u.label_switch.to = NULL;
}

static const struct aclrt_task_kind aclrt_kind_label = {ACLRT_TASK_LABEL, "label", aclrt_label_run, NULL};
/* Its run is the replay's (aclrt_model_run): on its own it does nothing. */
static const struct aclrt_task_kind aclrt_kind_label_switch = {ACLRT_TASK_LABEL_SWITCH, "label switch",
                                                               aclrt_label_run, aclrt_label_switch_drop};

/*
 * Where a switch step (built) sends the replay: the step number of the
 * label its index picks (an index past the last picks the last), read
 * from memory now. An error code when the index cannot be read.
 */
ACLRT_INTERNAL aclError aclrt_label_switch_target(const struct aclrt_task *t, uint32_t *step)
{
    uint32_t index = 0;
    const struct aclrt_backend *be = aclrt_rt.backend;
    if (be != NULL && be->mem_copy != NULL) {
        aclError rc = be->mem_copy(&index, t->u.label_switch.ptr, sizeof index, ACL_MEMCPY_DEVICE_TO_HOST);
        if (rc != ACL_SUCCESS)
            return rc;
    } else {
        memcpy(&index, t->u.label_switch.ptr, sizeof index);
    }
    if (index >= t->u32)
        index = t->u32 - 1;
    *step = (uint32_t)t->u.label_switch.to[index];
    return ACL_SUCCESS;
}

/*
 * Resolve the switches of a build's tasks (under the capture lock): every
 * label a switch names must be set exactly once in the model. False: not
 * so (*bad: the label); nothing is changed.
 */
ACLRT_INTERNAL bool aclrt_build_resolve_labels(struct aclrt_task *tasks, uint32_t count, void **bad, bool *twice)
{
    for (uint32_t i = 0; i < count; i++) {
        if (tasks[i].kind != &aclrt_kind_label_switch)
            continue;
        for (uint32_t k = 0; k < tasks[i].u32; k++) {
            void *want = (void *)tasks[i].u.label_switch.to[k];
            uint32_t found = 0;
            for (uint32_t j = 0; j < count; j++)
                if (tasks[j].kind == &aclrt_kind_label && tasks[j].u.label.handle == want)
                    found++;
            if (found != 1) {
                *bad = want;
                *twice = found > 1;
                return false;
            }
        }
    }
    for (uint32_t i = 0; i < count; i++) {
        if (tasks[i].kind != &aclrt_kind_label_switch)
            continue;
        for (uint32_t k = 0; k < tasks[i].u32; k++)
            for (uint32_t j = 0; j < count; j++)
                if (tasks[j].kind == &aclrt_kind_label &&
                    tasks[j].u.label.handle == (void *)tasks[i].u.label_switch.to[k]) {
                    tasks[i].u.label_switch.to[k] = j;
                    break;
                }
    }
    return true;
}

/* Add a step to the tasks a bound stream collects (aclrtSetLabel, aclrtSwitchLabelByIndex). */
ACLRT_INTERNAL aclError aclrt_build_add_step(struct aclrt_stream *s, const struct aclrt_task *t, const char *what)
{
    aclrt_capture_lock();
    if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_NONE || !aclrt_capture_is_build(s)) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%s takes a stream bound to a model being built (aclmdlRIBindStream) whose tasks have not "
                          "ended; stream %d is not",
                          what, (int)aclrt_slot_index(&s->hdr));
    }
    if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    struct aclrt_task copy = *t;
    copy.tid = aclrt_thread_tid();
    if (!aclrt_capture_append(&s->capture, &copy, 0)) {
        s->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "out of memory for a step of stream %d; its tasks are invalidated",
                          (int)aclrt_slot_index(&s->hdr));
    }
    aclrt_capture_unlock();
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCreateLabel(aclrtLabel *label)
{
    ACLRT_ENTER();
    if (label == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "label (output) is NULL");
    *label = NULL;
    struct aclrt_label *l = (struct aclrt_label *)aclrt_table_alloc(&aclrt_labels);
    if (l == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a label");
    aclrt_spin_lock(&l->lock); /* a late destroy of the slot's previous life may still hold it */
    *label = aclrt_table_publish(&aclrt_labels, &l->hdr);
    aclrt_spin_unlock(&l->lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyLabel(aclrtLabel label)
{
    ACLRT_ENTER();
    if (label == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "label is NULL");
    struct aclrt_label *l = (struct aclrt_label *)aclrt_table_lookup(&aclrt_labels, label);
    if (l != NULL) {
        aclrt_spin_lock(&l->lock);
        if ((struct aclrt_label *)aclrt_table_lookup(&aclrt_labels, label) == l) {
            aclrt_table_retire(&l->hdr);
            aclrt_spin_unlock(&l->lock);
            aclrt_table_free(&aclrt_labels, &l->hdr);
            return ACL_SUCCESS;
        }
        aclrt_spin_unlock(&l->lock);
    }
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "label %p is not a live label (destroyed, stale or garbage)",
                      label);
}

ACLRT_API aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
    ACLRT_ENTER();
    if (labelList == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "labelList (output) is NULL");
    *labelList = NULL;
    if (labels == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "labels is NULL");
    if (num == 0 || num > ACLRT_LABEL_LIST_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "num %zu is outside (0, %u]", num, ACLRT_LABEL_LIST_MAX);
    for (size_t i = 0; i < num; i++)
        if (labels[i] == NULL || aclrt_table_lookup(&aclrt_labels, labels[i]) == NULL)
            return aclrt_fail(labels[i] == NULL ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_INVALID_HANDLE,
                              "labels[%zu] (%p) is not a live label", i, labels[i]);
    void **copy = (void **)malloc(num * sizeof *copy);
    if (copy == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a label list");
    memcpy(copy, labels, num * sizeof *copy);
    struct aclrt_label_list *l = (struct aclrt_label_list *)aclrt_table_alloc(&aclrt_label_lists);
    if (l == NULL) {
        free(copy);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a label list");
    }
    aclrt_label_list_lock(l); /* a late lookup of the slot's previous life may still hold it */
    l->count = (uint32_t)num;
    l->labels = copy;
    *labelList = aclrt_table_publish(&aclrt_label_lists, &l->hdr);
    aclrt_label_list_unlock(l);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
    ACLRT_ENTER();
    struct aclrt_label_list *l;
    aclError rc = aclrt_label_list_get(labelList, &l);
    if (rc != ACL_SUCCESS)
        return rc;
    free(l->labels);
    l->labels = NULL;
    l->count = 0;
    aclrt_table_retire(&l->hdr);
    aclrt_label_list_unlock(l);
    aclrt_table_free(&aclrt_label_lists, &l->hdr);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
    ACLRT_ENTER();
    if (label == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "label is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is never bound)", true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_table_lookup(&aclrt_labels, label) == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "label %p is not a live label (destroyed, stale or garbage)",
                          label);
    struct aclrt_task t = {.kind = &aclrt_kind_label, .u.label.handle = label};
    return aclrt_build_add_step(s, &t, "aclrtSetLabel");
}

ACLRT_API aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr (the index) is NULL");
    if (maxValue == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxValue is 0 (it is the number of labels in the list)");
    struct aclrt_stream *s;
    aclError rc = aclrt_model_stream_arg(stream, "stream is NULL (the default stream is never bound)", true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_label_list *l;
    if ((rc = aclrt_label_list_get(labelList, &l)) != ACL_SUCCESS)
        return rc;
    if (maxValue > l->count) {
        uint32_t count = l->count;
        aclrt_label_list_unlock(l);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxValue %u is more than the %u labels of labelList %p",
                          (unsigned)maxValue, (unsigned)count, labelList);
    }
    uintptr_t *to = (uintptr_t *)malloc((size_t)maxValue * sizeof *to);
    if (to != NULL)
        for (uint32_t k = 0; k < maxValue; k++)
            to[k] = (uintptr_t)l->labels[k];
    aclrt_label_list_unlock(l);
    if (to == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a label switch");
    struct aclrt_task t = {.kind = &aclrt_kind_label_switch,
                           .u32 = maxValue,
                           .u.label_switch.ptr = ptr,
                           .u.label_switch.to = to};
    if ((rc = aclrt_build_add_step(s, &t, "aclrtSwitchLabelByIndex")) != ACL_SUCCESS)
        free(to);
    return rc;
}

#endif /* ACLRT_IMPL_MODEL_LABEL_H */
