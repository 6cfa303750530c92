/*
 * impl/task/capture.h - a stream's capture: between aclmdlRICaptureBegin and
 * aclmdlRICaptureEnd the tasks submitted to the stream are copied here, in
 * submission order, instead of going into its ring. aclmdlRICaptureEnd
 * hands them to the model (model_capture.h), whose replays run them.
 *
 * The record is part of struct aclrt_stream (stream.h); a submission looks
 * at the stream's `capturing` flag (one load of a line it reads anyway) and
 * only then comes here. Everything below is under one process-wide lock:
 * captures are rare and short, and a capture may span several streams.
 *
 * Several streams: the stream aclmdlRICaptureBegin named is the capture's
 * origin and holds the tasks. An event recorded on a capturing stream
 * leaves a mark in the origin's record (it is not recorded); a stream that
 * waits for a marked event joins the capture (its submissions go to the
 * origin's tasks, in submission order, which every dependency between the
 * streams follows: a wait comes after the record it waits for), and the
 * origin's wait for an event marked on a joined stream after that stream's
 * last task joins it back. aclmdlRICaptureEnd wants every joined stream
 * joined back.
 *
 * Only kinds that run to completion on the replaying thread and own nothing
 * a replay would consume are recorded (aclrt_capture_kind_ok). A call that
 * cannot be captured is refused with ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
 * and invalidates the capture (aclmdlRICaptureEnd then returns
 * ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED), as a model that would miss a
 * step must not be replayed.
 *
 * A model built explicitly (aclmdlRIBuildBegin, model_build.h) uses the same
 * record: a stream bound to it (aclmdlRIBindStream) is a capture origin of
 * its own, in RELAXED mode, until aclmdlRIEndTask (or aclmdlRIBuildEnd)
 * moves its tasks into the model's build (struct aclrt_build); the binding
 * itself lasts until aclmdlRIUnbindStream.
 */
#ifndef ACLRT_IMPL_TASK_CAPTURE_H
#define ACLRT_IMPL_TASK_CAPTURE_H

#include "../core/base.h"
#include "task.h"

struct aclrt_model;  /* model.h */
struct aclrt_event;  /* event.h */
struct aclrt_stream; /* stream.h */

/*
 * An explicit build (part of struct aclrt_model, model.h): the streams bound
 * to it and the tasks their aclmdlRIEndTask handed over. Under the capture
 * lock.
 */
struct aclrt_build {
    struct aclrt_stream **streams; /* bound, in binding order */
    uint32_t nstreams, streams_cap;
    struct aclrt_task *tasks;      /* handed over so far (cache-line aligned) */
    uint32_t *lanes;               /* each task's stream: an index into `handed` */
    uint32_t count, cap;
    struct aclrt_stream **handed;  /* the streams that handed tasks over, in the order they first did */
    uint8_t *activated;            /* per handed stream: bound with ACL_MODEL_STREAM_FLAG_DEFAULT */
    uint32_t nhanded;
    uint32_t ended;                /* aclmdlRIEndTask calls that succeeded */
    bool lost;                     /* a bound stream's tasks were lost: the build cannot end */
};

/* An event recorded during a capture: the stream it was recorded on, and where in the capture. */
struct aclrt_capture_mark {
    struct aclrt_event *event;
    uint32_t generation;          /* the event's life (its handle's) */
    uint32_t pos;                 /* tasks captured before it (the origin's count) */
    struct aclrt_stream *stream;
};

struct aclrt_capture {
    uint32_t status;              /* aclmdlRICaptureStatus (a joined stream: ACTIVE; the origin's says) */
    struct aclrt_stream *origin;  /* a joined stream: the capture's origin; NULL: this is the origin */
    uint32_t last;                /* a joined stream: the origin's count after its last task */
    uint32_t rejoined;            /* a joined stream: 1 + the position of the latest mark of it the origin waited for */
    uint32_t lane;                /* a joined stream: 1 + its place in the origin's `joined` (the origin: 0) */
    /* The origin only: */
    uint32_t mode;                /* aclmdlRICaptureMode given to aclmdlRICaptureBegin */
    uint32_t tid;                 /* the thread that began it */
    struct aclrt_model *model;    /* the model it builds (model.h) */
    struct aclrt_task *tasks;     /* recorded so far (cache-line aligned) */
    uint32_t *lanes;              /* each task's stream: 0 the origin, 1 + its place in `joined` */
    uint32_t count, cap;          /* of tasks and lanes */
    struct aclrt_stream **joined; /* streams that joined */
    uint32_t njoined, joined_cap;
    struct aclrt_capture_mark *marks;
    uint32_t nmarks, marks_cap;
    struct aclrt_stream *next_active; /* the list of origins (aclrt_capture_active) */
    bool grp_open;                /* aclmdlRICaptureTaskGrpBegin .. End: a task group is open */
    uint32_t grp_first;           /* the open group's first task (the origin's count at its begin) */
    struct aclrt_taskgrp *update; /* aclmdlRICaptureTaskUpdateBegin .. End: the group the tasks replace */
    /*
     * The explicit build the stream is bound to (aclmdlRIBindStream ..
     * aclmdlRIUnbindStream), whether or not it still collects tasks. Written
     * under the capture lock; read relaxed as a hint by calls that only then
     * take the lock.
     */
    struct aclrt_build *_Atomic bound;
    bool activated;               /* bound with ACL_MODEL_STREAM_FLAG_DEFAULT: runs when a step activates it */
};

/*
 * A task group (aclrtTaskGrp): a run of a captured model's tasks that an
 * update (aclmdlRICaptureTaskUpdateBegin .. End, model_update.h) can replace. It
 * lives as long as its model; the live ones are in aclrt_taskgrps, under
 * the capture lock, where a handle is looked up.
 */
struct aclrt_taskgrp {
    struct aclrt_model *model;
    void *model_handle;                 /* the model's handle (its life) */
    uint32_t first, count;              /* the tasks, by place in the model's body */
    struct aclrt_model_body *piece;     /* the latest update's tasks (a reference), or NULL: as captured */
    struct aclrt_taskgrp *next_gone;    /* out of the registry, on a list to free outside the lock */
};

static struct aclrt_taskgrp **aclrt_taskgrps; /* under the capture lock */
static uint32_t aclrt_ntaskgrps, aclrt_taskgrps_cap;

static pthread_mutex_t aclrt_capture_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Origins of captures under way, under the lock; the count is read without it (a hint, see event waits). */
static struct aclrt_stream *aclrt_capture_active;
static _Atomic uint32_t aclrt_captures_under_way;

ACLRT_INLINE void aclrt_capture_lock(void)
{
    pthread_mutex_lock(&aclrt_capture_mutex);
}

ACLRT_INLINE void aclrt_capture_unlock(void)
{
    pthread_mutex_unlock(&aclrt_capture_mutex);
}

/* Is any capture under way? Relaxed: a hint for calls that only then look (the lock decides). */
ACLRT_INLINE bool aclrt_capture_any(void)
{
    return atomic_load_explicit(&aclrt_captures_under_way, memory_order_relaxed) != 0;
}

/* The calling thread's capture mode (aclmdlRICaptureThreadExchangeMode); a thread starts in GLOBAL. */
static _Thread_local aclmdlRICaptureMode aclrt_capture_thread_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

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
    case ACLRT_TASK_MEMCPY2D:
    case ACLRT_TASK_MEMSET32:
    case ACLRT_TASK_MEMCPY_INDIRECT:
    case ACLRT_TASK_REDUCE:
    case ACLRT_TASK_KERNEL:
    case ACLRT_TASK_MODEL_RECORD:
    case ACLRT_TASK_MODEL_WAIT:
    case ACLRT_TASK_COND:
    case ACLRT_TASK_STREAM_ACTIVE:
    case ACLRT_TASK_STREAM_SWITCH:
    case ACLRT_TASK_NATIVE: /* a backend's model_step issues it on the replaying stream's queue */
        return true;
    default:
        return false;
    }
}

/* Make room for one more element of an array of `size`-byte elements. */
ACLRT_INTERNAL bool aclrt_capture_grow(void **array, uint32_t *cap, uint32_t count, size_t size)
{
    if (count < *cap)
        return true;
    uint32_t more = *cap == 0 ? 16 : *cap * 2;
    if (more <= *cap)
        return false;
    void *grown = malloc((size_t)more * size);
    if (grown == NULL)
        return false;
    if (count > 0)
        memcpy(grown, *array, (size_t)count * size);
    free(*array);
    *array = grown;
    *cap = more;
    return true;
}

/*
 * Make room for one more task (and its lane) in a record of `count` tasks
 * with room for `*cap`. False: out of memory (nothing changed).
 */
static bool aclrt_steps_grow(struct aclrt_task **tasks, uint32_t **lanes, uint32_t *cap, uint32_t count)
{
    if (count < *cap)
        return true;
    uint32_t more = *cap == 0 ? 16 : *cap * 2;
    if (more <= *cap)
        return false;
    struct aclrt_task *t = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, (size_t)more * sizeof *t);
    uint32_t *l = (uint32_t *)malloc((size_t)more * sizeof *l);
    if (t == NULL || l == NULL) {
        free(t);
        free(l);
        return false;
    }
    if (count > 0) {
        memcpy(t, *tasks, (size_t)count * sizeof *t);
        memcpy(l, *lanes, (size_t)count * sizeof *l);
    }
    free(*tasks);
    free(*lanes);
    *tasks = t;
    *lanes = l;
    *cap = more;
    return true;
}

/* Append a copy of `task`, submitted to the stream of `lane`, to an origin's record (under the lock). False: out of memory. */
ACLRT_INTERNAL bool aclrt_capture_append(struct aclrt_capture *c, const struct aclrt_task *task, uint32_t lane)
{
    if (!aclrt_steps_grow(&c->tasks, &c->lanes, &c->cap, c->count))
        return false;
    c->lanes[c->count] = lane;
    c->tasks[c->count++] = *task;
    return true;
}

/*
 * Append `count` tasks that stream s handed over (moved: the array is
 * freed) to a build's (under the lock); `activated`: s was bound with
 * ACL_MODEL_STREAM_FLAG_DEFAULT. False: out of memory (the tasks are
 * still the caller's).
 */
ACLRT_INTERNAL bool aclrt_build_append(struct aclrt_build *b, struct aclrt_stream *s, bool activated, struct aclrt_task *tasks,
                                       uint32_t count)
{
    if (count == 0) {
        free(tasks);
        return true;
    }
    uint32_t lane = 0;
    while (lane < b->nhanded && b->handed[lane] != s)
        lane++;
    if (lane == b->nhanded) {
        struct aclrt_stream **handed = (struct aclrt_stream **)realloc(b->handed, (size_t)(lane + 1) * sizeof b->handed[0]);
        if (handed == NULL)
            return false;
        b->handed = handed;
        uint8_t *modes = (uint8_t *)realloc(b->activated, (size_t)lane + 1);
        if (modes == NULL)
            return false;
        b->activated = modes;
        b->activated[lane] = activated;
        b->handed[b->nhanded++] = s;
    }
    size_t total = (size_t)b->count + count;
    if (total > UINT32_MAX)
        return false;
    struct aclrt_task *all = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, total * sizeof *all);
    uint32_t *lanes = (uint32_t *)malloc(total * sizeof *lanes);
    if (all == NULL || lanes == NULL) {
        free(all);
        free(lanes);
        return false;
    }
    if (b->count > 0) {
        memcpy(all, b->tasks, (size_t)b->count * sizeof *all);
        memcpy(lanes, b->lanes, (size_t)b->count * sizeof *lanes);
    }
    memcpy(all + b->count, tasks, (size_t)count * sizeof *all);
    for (size_t i = b->count; i < total; i++)
        lanes[i] = lane;
    free(b->tasks);
    free(b->lanes);
    free(tasks);
    b->tasks = all;
    b->lanes = lanes;
    b->count = b->cap = (uint32_t)total;
    return true;
}

/* Tasks that will never run (a capture thrown away, a model destroyed): what they hold goes. */
ACLRT_INTERNAL void aclrt_capture_drop_tasks(struct aclrt_task *tasks, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (tasks[i].kind->drop != NULL)
            tasks[i].kind->drop(&tasks[i]);
    free(tasks);
}

#endif /* ACLRT_IMPL_TASK_CAPTURE_H */
