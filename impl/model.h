/*
 * impl/model.h - models (aclmdlRI) captured from a stream, and their replay.
 *
 * aclmdlRICaptureBegin makes the model (its handle is what
 * aclmdlRICaptureGetInfo reports) and starts the stream's capture
 * (capture.h); aclmdlRICaptureEnd moves the recorded tasks into the model's
 * body. The body is immutable from then on and reference-counted: the
 * model holds one reference, every replay in flight one more, so
 * aclmdlRIDestroy returns at once and a pending replay still runs to the
 * end; the last reference drops what the tasks hold (kernel argument
 * copies, binaries counted in flight).
 *
 * A replay (aclmdlRIExecuteAsync) is ONE task of the stream (kind
 * ACLRT_TASK_MODEL): its run runs the captured tasks in order on the
 * executing thread, each from a fresh copy of its record, so no replay
 * changes the model. A task that blocks (a host function handed to a
 * subscribed thread) blocks the model task: the copy is kept, the stream
 * parks as for any blocked task, and the model task resumes with it. The
 * first failing task ends the replay with its code (later tasks do not run).
 *
 * A model built explicitly (aclmdlRIBuildBegin .. BuildEnd) starts empty;
 * each stream bound to it collects tasks as a capture of its own
 * (stream_capture.h) until aclmdlRIEndTask (or BuildEnd) appends them to the
 * model's build (struct aclrt_build, under the capture lock), which
 * BuildEnd turns into the body. Lock order: a model's lock, then the
 * capture lock. Labels (aclrtSetLabel) are no-op steps; a switch step
 * (aclrtSwitchLabelByIndex), resolved by BuildEnd to the labels' step
 * numbers, makes the replay go on after the label its index picks.
 *
 * Each slot has a small lock, in the slot (whose memory lives as long as
 * the table): a lookup takes it and checks the handle again, so a replay's
 * reference and a destroy never cross.
 */
#ifndef ACLRT_IMPL_MODEL_H
#define ACLRT_IMPL_MODEL_H

#include "base.h"
#include "block.h"
#include "capture.h"
#include "context.h"
#include "error.h"
#include "exec.h"
#include "handle.h"
#include "report.h"
#include "stream.h"
#include "stream_capture.h"
#include "stream_submit.h"
#include "stream_api.h"
#include "stream_wait.h"
#include "task.h"
#include "thread.h"

#define ACLRT_MODEL_CAPTURING 0u /* aclmdlRICaptureBegin .. End */
#define ACLRT_MODEL_READY 1u     /* built: replays run its body */
#define ACLRT_MODEL_BUILDING 2u  /* aclmdlRIBuildBegin .. BuildEnd */

struct aclrt_model_body {
    _Atomic uint32_t refs; /* the model's, and one per replay not done */
    uint32_t count;
    struct aclrt_task *tasks; /* as captured (cache-line aligned) */
};

struct aclrt_model {
    struct aclrt_slot hdr;
    _Atomic bool lock; /* over the fields below and the slot's life */
    uint32_t state;
    struct aclrt_context *ctx;
    struct aclrt_stream *stream; /* CAPTURING: the stream whose capture builds it */
    struct aclrt_model_body *body; /* READY */
    bool built;                    /* made by aclmdlRIBuildBegin (its build: `build`) */
    struct aclrt_build build;      /* under the capture lock (capture.h): bound streams, tasks handed over */
};

static struct aclrt_table aclrt_models = ACLRT_TABLE_INIT(ACLRT_KIND_MODEL, struct aclrt_model, "model");

/* Acquire: pairs with the release in aclrt_model_unlock. */
ACLRT_INLINE void aclrt_model_lock(struct aclrt_model *m)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(&m->lock, true, memory_order_acquire)) {
        if (++spins < 64)
            aclrt_cpu_relax();
        else
            sched_yield();
    }
}

/* Release: pairs with the acquire in aclrt_model_lock (the next holder sees our writes). */
ACLRT_INLINE void aclrt_model_unlock(struct aclrt_model *m)
{
    atomic_store_explicit(&m->lock, false, memory_order_release);
}

/* Lock m if the handle h still names it (true); otherwise leave it alone (false). */
static bool aclrt_model_lock_alive(struct aclrt_model *m, const void *h)
{
    aclrt_model_lock(m);
    if ((struct aclrt_model *)aclrt_table_lookup(&aclrt_models, h) == m)
        return true;
    aclrt_model_unlock(m);
    return false;
}

/* The live model a handle names, locked. */
static aclError aclrt_model_get(aclmdlRI modelRI, struct aclrt_model **out)
{
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    struct aclrt_model *m = (struct aclrt_model *)aclrt_table_lookup(&aclrt_models, modelRI);
    if (m == NULL || !aclrt_model_lock_alive(m, modelRI))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "modelRI %p is not a live model (destroyed, stale or garbage)",
                          modelRI);
    *out = m;
    return ACL_SUCCESS;
}

static void aclrt_model_body_put(struct aclrt_model_body *b)
{
    /* Acq_rel: the last one to let go sees every replay's end (their reads of the tasks). */
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
        return;
    aclrt_capture_drop_tasks(b->tasks, b->count);
    free(b);
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
        struct aclrt_stream *s = b->streams[b->nstreams - 1];
        if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL)
            aclrt_capture_finish(s, &t, &n);
        aclrt_build_unbind(b, s);
        aclrt_capture_unlock();
        aclrt_capture_drop_tasks(t, n);
    }
    free(b->streams);
    *tasks = b->tasks;
    *count = b->count;
    *b = (struct aclrt_build){0};
    aclrt_capture_unlock();
}

/* End a model's life (the caller holds its lock, which this releases); its body goes when no replay holds it. */
static void aclrt_model_retire(struct aclrt_model *m)
{
    struct aclrt_task *pending = NULL;
    uint32_t npending = 0;
    if (m->built)
        aclrt_model_build_release(m, &pending, &npending);
    aclrt_capture_drop_tasks(pending, npending);
    struct aclrt_model_body *b = m->body;
    m->body = NULL;
    m->stream = NULL;
    aclrt_table_retire(&m->hdr);
    aclrt_model_unlock(m);
    aclrt_table_free(&aclrt_models, &m->hdr);
    if (b != NULL)
        aclrt_model_body_put(b);
}

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

/* Acquire: pairs with the release in aclrt_label_unlock. */
ACLRT_INLINE void aclrt_label_lock(_Atomic bool *lock)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(lock, true, memory_order_acquire)) {
        if (++spins < 64)
            aclrt_cpu_relax();
        else
            sched_yield();
    }
}

/* Release: pairs with the acquire in aclrt_label_lock. */
ACLRT_INLINE void aclrt_label_unlock(_Atomic bool *lock)
{
    atomic_store_explicit(lock, false, memory_order_release);
}

ACLRT_INLINE void aclrt_label_list_lock(struct aclrt_label_list *l)
{
    aclrt_label_lock(&l->lock);
}

ACLRT_INLINE void aclrt_label_list_unlock(struct aclrt_label_list *l)
{
    aclrt_label_unlock(&l->lock);
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
static aclError aclrt_label_switch_target(const struct aclrt_task *t, uint32_t *step)
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
static bool aclrt_build_resolve_labels(struct aclrt_task *tasks, uint32_t count, void **bad, bool *twice)
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
static aclError aclrt_build_add_step(struct aclrt_stream *s, const struct aclrt_task *t, const char *what)
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
    if (!aclrt_capture_append(&s->capture, &copy)) {
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
    aclrt_label_lock(&l->lock); /* a late destroy of the slot's previous life may still hold it */
    *label = aclrt_table_publish(&aclrt_labels, &l->hdr);
    aclrt_label_unlock(&l->lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyLabel(aclrtLabel label)
{
    ACLRT_ENTER();
    if (label == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "label is NULL");
    struct aclrt_label *l = (struct aclrt_label *)aclrt_table_lookup(&aclrt_labels, label);
    if (l != NULL) {
        aclrt_label_lock(&l->lock);
        if ((struct aclrt_label *)aclrt_table_lookup(&aclrt_labels, label) == l) {
            aclrt_table_retire(&l->hdr);
            aclrt_label_unlock(&l->lock);
            aclrt_table_free(&aclrt_labels, &l->hdr);
            return ACL_SUCCESS;
        }
        aclrt_label_unlock(&l->lock);
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
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream is never bound)");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    if (aclrt_table_lookup(&aclrt_labels, label) == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "label %p is not a live label (destroyed, stale or garbage)",
                          label);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = &aclrt_kind_label;
    t.u.label.handle = label;
    return aclrt_build_add_step(s, &t, "aclrtSetLabel");
}

ACLRT_API aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr (the index) is NULL");
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream is never bound)");
    if (maxValue == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "maxValue is 0 (it is the number of labels in the list)");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
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
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = &aclrt_kind_label_switch;
    t.u32 = maxValue;
    t.u.label_switch.ptr = ptr;
    t.u.label_switch.to = to;
    if ((rc = aclrt_build_add_step(s, &t, "aclrtSwitchLabelByIndex")) != ACL_SUCCESS)
        free(to);
    return rc;
}

/* ------------------------------------------------------------------------
 * The replay task
 * ------------------------------------------------------------------------ */

/*
 * A captured record made ready to run once: what the model owns stays the
 * model's (a kernel's argument copy and its binary's count are dropped
 * with the model, not by the run).
 */
ACLRT_INLINE void aclrt_model_task_copy(struct aclrt_task *dst, const struct aclrt_task *src)
{
    *dst = *src;
    if (dst->kind->id == ACLRT_TASK_KERNEL) {
        dst->u.kernel.owned = 0;
        dst->u.kernel.binary = NULL;
    }
}

/*
 * A captured task blocked and there is no memory to keep its copy: wait for
 * the block here, on this thread, then let go of the park's reference.
 */
static void aclrt_model_wait_block(struct aclrt_block *blk)
{
    while (!aclrt_block_over(blk))
        sched_yield();
    if (blk->held != NULL)
        aclrt_report_item_put(blk->held);
    blk->held = NULL;
}

static int aclrt_model_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_model_body *b = t->u.model.body;
    struct aclrt_task *resume = t->u.model.resume;
    struct aclrt_task here;
    int rc = ACL_SUCCESS;
    for (uint32_t i = t->u.model.next; i < b->count; i++) {
        struct aclrt_task *sub = resume;
        if (sub == NULL) {
            if (ACLRT_UNLIKELY(b->tasks[i].kind == &aclrt_kind_label_switch)) {
                uint32_t step;
                if ((rc = aclrt_label_switch_target(&b->tasks[i], &step)) != ACL_SUCCESS)
                    break;
                i = step; /* the label's step, a no-op: the loop goes on after it */
                continue;
            }
            aclrt_model_task_copy(&here, &b->tasks[i]);
            sub = &here;
        }
        aclrt_tls.ctx_handle = NULL; /* as between the stream's own tasks (exec.h) */
        rc = sub->kind->run(s, sub, blk);
        while (ACLRT_UNLIKELY(rc == ACLRT_TASK_BLOCKED)) {
            if (resume == NULL) {
                resume = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, sizeof *resume);
                if (resume == NULL) {
                    aclrt_model_wait_block(blk);
                    *blk = (struct aclrt_block)ACLRT_BLOCK_NONE;
                    rc = sub->kind->run(s, sub, blk);
                    continue;
                }
                *resume = here;
            }
            t->u.model.next = i;
            t->u.model.resume = resume;
            return ACLRT_TASK_BLOCKED;
        }
        if (resume != NULL) {
            free(resume);
            resume = NULL;
            t->u.model.resume = NULL;
        }
        if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
            break;
    }
    t->u.model.body = NULL;
    aclrt_model_body_put(b);
    return rc;
}

/* A replay dropped (discarded, or its context stopped), perhaps half-way: what it holds goes. */
static void aclrt_model_drop(struct aclrt_task *t)
{
    struct aclrt_task *resume = t->u.model.resume;
    if (resume != NULL) {
        if (resume->kind->drop != NULL)
            resume->kind->drop(resume); /* a copy: only what the run took (a handed-off item) */
        free(resume);
        t->u.model.resume = NULL;
    }
    if (t->u.model.body != NULL) {
        aclrt_model_body_put(t->u.model.body);
        t->u.model.body = NULL;
    }
}

static const struct aclrt_task_kind aclrt_kind_model = {ACLRT_TASK_MODEL, "model", aclrt_model_run, aclrt_model_drop};

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_INLINE bool aclrt_capture_mode_valid(aclmdlRICaptureMode mode)
{
    return (unsigned)mode <= (unsigned)ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

ACLRT_API aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    ACLRT_ENTER();
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be captured)");
    if (!aclrt_capture_mode_valid(mode))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %d is not an aclmdlRICaptureMode", (int)mode);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_stream_capturing(s))
        return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURED, "stream %p is already capturing a model", stream);
    struct aclrt_model *m = (struct aclrt_model *)aclrt_table_alloc(&aclrt_models);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");
    aclrt_model_lock(m); /* a late lookup of the slot's previous life may still hold it */
    m->state = ACLRT_MODEL_CAPTURING;
    m->ctx = s->ctx;
    m->stream = s;
    m->body = NULL;
    m->built = false;
    m->build = (struct aclrt_build){0};
    void *handle = aclrt_table_publish(&aclrt_models, &m->hdr);
    aclrt_model_unlock(m);

    aclrt_capture_lock();
    bool busy = s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    bool bound = aclrt_stream_bound(s) != NULL;
    if (!busy && !bound)
        aclrt_capture_start(s, (uint32_t)mode, m);
    aclrt_capture_unlock();
    if (busy || bound) {
        if (aclrt_model_lock_alive(m, handle))
            aclrt_model_retire(m);
        if (bound && !busy)
            return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL,
                              "stream %p is bound to a model (aclmdlRIBindStream) and cannot be captured; "
                              "aclmdlRIUnbindStream first",
                              stream);
        return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURED, "stream %p is already capturing a model", stream);
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    ACLRT_ENTER();
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (status == NULL && modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status and modelRI (outputs) are both NULL");
    /* A forked child: the capture lock may have been held by a thread the child does not have. */
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    uint32_t st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    struct aclrt_model *m = NULL;
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        struct aclrt_stream *o = aclrt_capture_origin(s);
        st = o->capture.status;
        m = o->capture.model;
    }
    aclrt_capture_unlock();
    if (status != NULL)
        *status = (aclmdlRICaptureStatus)st;
    if (modelRI != NULL)
        *modelRI = m != NULL ? aclrt_slot_handle(&aclrt_models, &m->hdr) : NULL;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    ACLRT_ENTER();
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL");
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI (output) is NULL");
    *modelRI = NULL;
    /* A forked child: the capture lock may have been held by a thread the child does not have. */
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_capture_lock();
    struct aclrt_capture *c = &s->capture;
    uint32_t st = c->status;
    if (st == ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is not capturing (aclmdlRICaptureBegin first)", stream);
    }
    if (aclrt_capture_is_build(s)) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is bound to a model being built (aclmdlRIBindStream), not capturing; its tasks "
                          "end with aclmdlRIEndTask",
                          stream);
    }
    if (c->origin != NULL) {
        int origin = (int)aclrt_slot_index(&c->origin->hdr);
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                          "stream %p joined the capture of stream %d, which began it; end it there", stream, origin);
    }
    struct aclrt_stream *unjoined = aclrt_capture_unjoined(s);
    int unjoined_id = unjoined != NULL ? (int)aclrt_slot_index(&unjoined->hdr) : -1;
    uint32_t mode = c->mode, tid = c->tid;
    struct aclrt_model *m = c->model;
    void *handle = aclrt_slot_handle(&aclrt_models, &m->hdr); /* alive: not destroyed while its stream captures it */
    struct aclrt_task *tasks;
    uint32_t count;
    aclrt_capture_finish(s, &tasks, &count);
    aclrt_capture_unlock();

    rc = ACL_SUCCESS;
    struct aclrt_model_body *b = NULL;
    if (mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && tid != aclrt_thread_tid())
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                        "the capture on stream %p began on another thread and its mode is not "
                        "ACL_MODEL_RI_CAPTURE_MODE_RELAXED; the capture is ended and its model destroyed",
                        stream);
    else if (st == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                        "the capture on stream %p was invalidated by a call that cannot be captured; "
                        "its model is destroyed",
                        stream);
    else if (unjoined != NULL)
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_UNJOINED,
                        "stream %d joined the capture on stream %p and was not joined back (an event recorded on it "
                        "after its last task, waited for by the origin stream); the capture is ended and its model "
                        "destroyed",
                        unjoined_id, stream);
    else if ((b = (struct aclrt_model_body *)malloc(sizeof *b)) == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");
    if (rc != ACL_SUCCESS) {
        aclrt_capture_drop_tasks(tasks, count);
        if (aclrt_model_lock_alive(m, handle))
            aclrt_model_retire(m);
        return rc;
    }
    atomic_init(&b->refs, 1);
    b->count = count;
    b->tasks = tasks;
    /* A destroy that came between the capture's end and here (another thread's) took the model away. */
    if (!aclrt_model_lock_alive(m, handle)) {
        aclrt_capture_drop_tasks(tasks, count);
        free(b);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "the capture's model was destroyed while the capture ended");
    }
    m->state = ACLRT_MODEL_READY;
    m->stream = NULL;
    m->body = b;
    *modelRI = handle;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    ACLRT_ENTER();
    if (mode == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode is NULL");
    if (!aclrt_capture_mode_valid(*mode))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "mode %d is not an aclmdlRICaptureMode", (int)*mode);
    aclmdlRICaptureMode old = aclrt_capture_thread_mode;
    aclrt_capture_thread_mode = *mode;
    *mode = old;
    return ACL_SUCCESS;
}

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

/* The model m (locked, BUILDING) is done being built: refused with the caller's wording. */
static aclError aclrt_model_refuse_ended(struct aclrt_model *m, aclmdlRI modelRI, const char *what)
{
    aclrt_model_unlock(m);
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the build of modelRI %p has ended (aclmdlRIBuildEnd); %s",
                      modelRI, what);
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
    struct aclrt_model *m = (struct aclrt_model *)aclrt_table_alloc(&aclrt_models);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");
    aclrt_model_lock(m); /* a late lookup of the slot's previous life may still hold it */
    m->state = ACLRT_MODEL_BUILDING;
    m->ctx = ctx;
    m->stream = NULL;
    m->body = NULL;
    m->built = true;
    m->build = (struct aclrt_build){0};
    *modelRI = aclrt_table_publish(&aclrt_models, &m->hdr);
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be bound)");
    if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "flag %#x is neither ACL_MODEL_STREAM_FLAG_HEAD nor ACL_MODEL_STREAM_FLAG_DEFAULT",
                          (unsigned)flag);
    if (flag == ACL_MODEL_STREAM_FLAG_DEFAULT)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "ACL_MODEL_STREAM_FLAG_DEFAULT binds a stream activated during execution "
                          "(aclrtActiveStream), which is not implemented; bind with ACL_MODEL_STREAM_FLAG_HEAD");
    /* A forked child: the capture lock may have been held by a thread the child does not have. */
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (s->is_default)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "stream %p is a default stream, which cannot be bound", stream);
    struct aclrt_model *m;
    if ((rc = aclrt_model_get_built(modelRI, &m)) != ACL_SUCCESS)
        return rc;
    if (m->state != ACLRT_MODEL_BUILDING)
        return aclrt_model_refuse_ended(m, modelRI, "no stream binds to it any more");
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
                aclrt_capture_grow((void **)&b->streams, &b->streams_cap, b->nstreams, sizeof *b->streams, 0);
    if (room) {
        b->streams[b->nstreams++] = s;
        atomic_store_explicit(&s->capture.bound, b, memory_order_relaxed); /* see aclrt_stream_bound */
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
    if (status != ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED && aclrt_build_append(b, tasks, count))
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
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream is never bound)");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_model *m;
    if ((rc = aclrt_model_get_built(modelRI, &m)) != ACL_SUCCESS)
        return rc;
    if (m->state != ACLRT_MODEL_BUILDING)
        return aclrt_model_refuse_ended(m, modelRI, "its tasks have all ended");
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
    aclError rc = aclrt_model_get_built(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (m->state != ACLRT_MODEL_BUILDING)
        return aclrt_model_refuse_ended(m, modelRI, "it ends once");
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
        atomic_init(&body->refs, 1);
        body->count = b->count;
        body->tasks = b->tasks;
        b->tasks = NULL;
        b->count = b->cap = 0;
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
    m->body = body;
    aclrt_model_unlock(m);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream is never bound)");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_model *m;
    if ((rc = aclrt_model_get_built(modelRI, &m)) != ACL_SUCCESS)
        return rc;
    struct aclrt_build *b = &m->build;
    struct aclrt_task *tasks = NULL;
    uint32_t count = 0;
    aclrt_capture_lock();
    bool bound = aclrt_stream_bound(s) == b;
    if (bound) {
        if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL)
            aclrt_capture_finish(s, &tasks, &count); /* tasks not ended: they never make it into the model */
        aclrt_build_unbind(b, s);
    }
    aclrt_capture_unlock();
    aclrt_model_unlock(m);
    aclrt_capture_drop_tasks(tasks, count);
    if (!bound)
        return aclrt_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %p is not bound to modelRI %p", stream, modelRI);
    return ACL_SUCCESS;
}

/* Submit a replay of the model to s; *number (if not NULL) is its task's number. */
static aclError aclrt_model_submit(aclmdlRI modelRI, struct aclrt_stream *s, uint64_t *number)
{
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (m->state == ACLRT_MODEL_BUILDING) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "modelRI %p is still being built (aclmdlRIBuildEnd first)",
                          modelRI);
    }
    if (m->state != ACLRT_MODEL_READY) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_CAPTURED,
                          "modelRI %p is still being captured (aclmdlRICaptureEnd first)", modelRI);
    }
    if (m->ctx != s->ctx) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_CONTEXT, "modelRI %p belongs to another context than the stream's",
                          modelRI);
    }
    struct aclrt_model_body *b = m->body;
    atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed); /* the model's own reference keeps it */
    aclrt_model_unlock(m);
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = &aclrt_kind_model;
    t.u.model.body = b;
    rc = aclrt_stream_submit(s, &t, number);
    if (rc != ACL_SUCCESS)
        aclrt_model_body_put(b);
    return rc;
}

ACLRT_API aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_UNLIKELY(aclrt_stream_bound(s) != NULL)) /* a hint: a binding racing this call goes either way */
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "stream %p is bound to a model (aclmdlRIBindStream); a model executes on another stream",
                          stream);
    return aclrt_model_submit(modelRI, s, NULL);
}

ACLRT_API aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    ACLRT_ENTER();
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    if (timeout == 0 || timeout < -1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(NULL, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_running_stream() == s)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "a task of the default stream cannot execute a model on it and wait (it would wait for "
                          "itself)");
    uint64_t number;
    if ((rc = aclrt_model_submit(modelRI, s, &number)) != ACL_SUCCESS)
        return rc;
    rc = aclrt_stream_wait_count(s, number, timeout, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    if (rc != ACL_SUCCESS)
        return aclrt_stream_wait_fail(s, rc, "the model's execution", timeout);
    aclError err = aclrt_stream_take_error(s);
    if (err != ACL_SUCCESS)
        return aclrt_fail(err, "a task of the model (or earlier work of the default stream) failed");
    return ACL_SUCCESS;
}

ACLRT_API aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    ACLRT_ENTER();
    struct aclrt_model *m;
    aclError rc = aclrt_model_get(modelRI, &m);
    if (rc != ACL_SUCCESS)
        return rc;
    if (m->state == ACLRT_MODEL_CAPTURING) {
        /* Refused while its stream still captures it; a capture that went with its stream left it behind. */
        struct aclrt_stream *s = m->stream;
        aclrt_capture_lock();
        bool building = s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL &&
                        s->capture.model == m;
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

#endif /* ACLRT_IMPL_MODEL_H */
