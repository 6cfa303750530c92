/*
 * impl/capture.h - a stream's capture: between aclmdlRICaptureBegin and
 * aclmdlRICaptureEnd the tasks submitted to the stream are copied here, in
 * submission order, instead of going into its ring. aclmdlRICaptureEnd
 * hands them to the model (model.h), which replays them.
 *
 * The record is part of struct aclrt_stream (stream.h); a submission looks
 * at the stream's `capturing` flag (one load of a line it reads anyway) and
 * only then comes here. Everything below is under the capture's lock: a
 * capture is rare and short, a spin lock is enough, and its word lives in
 * the stream slot, so a late submitter that saw the flag never touches
 * freed memory.
 *
 * Only kinds that run to completion on the replaying thread and own nothing
 * a replay would consume are recorded (aclrt_capture_kind_ok). A call that
 * cannot be captured is refused with ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
 * and invalidates the capture (aclmdlRICaptureEnd then returns
 * ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), as a capture whose model would
 * miss a step must not be replayed.
 */
#ifndef ACLRT_IMPL_CAPTURE_H
#define ACLRT_IMPL_CAPTURE_H

#include "base.h"
#include "task.h"

struct aclrt_model; /* model.h */

struct aclrt_capture {
    _Atomic bool lock;
    uint32_t status;           /* aclmdlRICaptureStatus */
    uint32_t mode;             /* aclmdlRICaptureMode given to aclmdlRICaptureBegin */
    uint32_t tid;              /* the thread that began it */
    struct aclrt_model *model; /* the model it builds (model.h) */
    struct aclrt_task *tasks;  /* recorded so far (cache-line aligned) */
    uint32_t count, cap;
};

/* Acquire: pairs with the release in aclrt_capture_unlock (the previous holder's writes). */
ACLRT_INLINE void aclrt_capture_lock(struct aclrt_capture *c)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(&c->lock, true, memory_order_acquire)) {
        if (++spins < 64)
            aclrt_cpu_relax();
        else
            sched_yield();
    }
}

ACLRT_INLINE void aclrt_capture_unlock(struct aclrt_capture *c)
{
    atomic_store_explicit(&c->lock, false, memory_order_release);
}

/*
 * Kinds a model can hold and replay: they complete on the replaying thread
 * (or block on a report thread and resume), and what they hold is either
 * nothing or, for a kernel, handed over to the model (model.h).
 */
ACLRT_INLINE bool aclrt_capture_kind_ok(enum aclrt_task_kind_id id)
{
    switch (id) {
    case ACLRT_TASK_NOP:
    case ACLRT_TASK_HOST_FUNC:
    case ACLRT_TASK_CALLBACK:
    case ACLRT_TASK_HOST_KERNEL:
    case ACLRT_TASK_MEMCPY:
    case ACLRT_TASK_MEMSET:
    case ACLRT_TASK_REDUCE:
    case ACLRT_TASK_KERNEL:
        return true;
    default:
        return false;
    }
}

/* Append a copy of `task` (the caller holds the lock). False: out of memory. */
static bool aclrt_capture_append(struct aclrt_capture *c, const struct aclrt_task *task)
{
    if (c->count == c->cap) {
        uint32_t cap = c->cap == 0 ? 16 : c->cap * 2;
        if (cap < c->cap)
            return false;
        struct aclrt_task *grown =
            (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, (size_t)cap * sizeof(struct aclrt_task));
        if (grown == NULL)
            return false;
        if (c->count > 0)
            memcpy(grown, c->tasks, (size_t)c->count * sizeof(struct aclrt_task));
        free(c->tasks);
        c->tasks = grown;
        c->cap = cap;
    }
    c->tasks[c->count++] = *task;
    return true;
}

/* Tasks that will never run (a capture thrown away, a model destroyed): what they hold goes. */
static void aclrt_capture_drop_tasks(struct aclrt_task *tasks, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (tasks[i].kind->drop != NULL)
            tasks[i].kind->drop(&tasks[i]);
    free(tasks);
}

/*
 * End the capture's record (the caller holds the lock): the recorded tasks
 * go to the caller (*tasks, *count), the record is empty and NONE.
 */
ACLRT_INLINE void aclrt_capture_take(struct aclrt_capture *c, struct aclrt_task **tasks, uint32_t *count)
{
    *tasks = c->tasks;
    *count = c->count;
    c->tasks = NULL;
    c->count = c->cap = 0;
    c->status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    c->model = NULL;
}

#endif /* ACLRT_IMPL_CAPTURE_H */
