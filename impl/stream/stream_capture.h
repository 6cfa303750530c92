/*
 * impl/stream/stream_capture.h - what a capturing stream does with its calls (the
 * capture's record and lock: capture.h; the model it becomes: model_capture.h).
 *
 * A submission to a stream whose `capturing` flag is set comes here instead
 * of going into the ring (aclrt_stream_capture_task); an event recorded on
 * a capturing stream is marked, not recorded (aclrt_capture_mark_event); a
 * wait for a marked event joins the waiting stream to the capture
 * (aclrt_capture_wait_event); a call the capture cannot keep is refused and
 * invalidates it. Synchronizing, querying or destroying a capturing stream
 * is refused (aclrt_stream_refuse_captured).
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_CAPTURE_H
#define ACLRT_IMPL_STREAM_STREAM_CAPTURE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "stream.h"

/*
 * Is a capture under way on s? Relaxed: a hint; the capture lock decides
 * (a submission racing aclmdlRICaptureBegin or End may go either way, as
 * the two are concurrent). Written only under the capture lock.
 */
ACLRT_INLINE bool aclrt_stream_capturing(const struct aclrt_stream *s)
{
    return atomic_load_explicit(&s->capturing, memory_order_relaxed);
}

/* The origin of the capture s takes part in (under the capture lock, s capturing). */
ACLRT_INLINE struct aclrt_stream *aclrt_capture_origin(struct aclrt_stream *s)
{
    return s->capture.origin != NULL ? s->capture.origin : s;
}

/* Invalidate the capture s takes part in (under the capture lock). */
ACLRT_INLINE void aclrt_capture_invalidate(struct aclrt_stream *s)
{
    aclrt_capture_origin(s)->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
}

/* s takes part in a capture no more (under the capture lock). */
static void aclrt_capture_leave(struct aclrt_stream *s)
{
    s->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    s->capture.origin = NULL;
    s->capture.last = s->capture.rejoined = 0;
    s->capture.model = NULL;
    atomic_store_explicit(&s->capturing, false, memory_order_relaxed); /* see aclrt_stream_capturing */
}

/* The build s is bound to (under the capture lock; relaxed: written only under it). */
ACLRT_INLINE struct aclrt_build *aclrt_stream_bound(const struct aclrt_stream *s)
{
    return atomic_load_explicit(&s->capture.bound, memory_order_relaxed);
}

/* Is the capture whose origin is o a bound stream collecting for a build (under the capture lock)? */
ACLRT_INLINE bool aclrt_capture_is_build(const struct aclrt_stream *o)
{
    return o->capture.origin == NULL && aclrt_stream_bound(o) != NULL;
}

/* s is bound to b no more (under the capture lock; s collects no tasks). */
ACLRT_INTERNAL void aclrt_build_unbind(struct aclrt_build *b, struct aclrt_stream *s)
{
    for (uint32_t i = 0; i < b->nstreams; i++)
        if (b->streams[i] == s) {
            memmove(&b->streams[i], &b->streams[i + 1], (size_t)(b->nstreams - i - 1) * sizeof *b->streams);
            b->nstreams--;
            break;
        }
    atomic_store_explicit(&s->capture.bound, NULL, memory_order_relaxed); /* see aclrt_stream_bound */
    s->capture.activated = false;
}

/* s joins the capture of origin o (under the capture lock). False: out of memory. */
static bool aclrt_capture_join(struct aclrt_stream *o, struct aclrt_stream *s)
{
    struct aclrt_capture *oc = &o->capture;
    if (!aclrt_capture_grow((void **)&oc->joined, &oc->joined_cap, oc->njoined, sizeof *oc->joined))
        return false;
    oc->joined[oc->njoined++] = s;
    s->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    s->capture.origin = o;
    s->capture.lane = oc->njoined;
    s->capture.last = s->capture.rejoined = 0;
    atomic_store_explicit(&s->capturing, true, memory_order_relaxed); /* see aclrt_stream_capturing */
    return true;
}

/* Start a capture with s as its origin (under the capture lock; s takes part in none). */
ACLRT_INTERNAL void aclrt_capture_start(struct aclrt_stream *s, uint32_t mode, struct aclrt_model *model)
{
    struct aclrt_capture *c = &s->capture;
    c->status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    c->origin = NULL;
    c->lane = 0;
    c->mode = mode;
    c->tid = aclrt_thread_tid();
    c->model = model;
    c->next_active = aclrt_capture_active;
    aclrt_capture_active = s;
    atomic_fetch_add_explicit(&aclrt_captures_under_way, 1, memory_order_relaxed); /* a hint (capture.h) */
    atomic_store_explicit(&s->capturing, true, memory_order_relaxed); /* see aclrt_stream_capturing */
}

/*
 * End the capture whose origin is o (under the capture lock): every stream
 * leaves it; its tasks go to the caller (*tasks, *count) and, if `lanes`
 * is not NULL, each task's stream (*lanes: 0 the origin, i + 1 the i-th
 * stream that joined; *nlanes streams in all), else the lanes are freed.
 */
ACLRT_INTERNAL void aclrt_capture_finish_lanes(struct aclrt_stream *o, struct aclrt_task **tasks, uint32_t *count,
                                       uint32_t **lanes, uint32_t *nlanes)
{
    struct aclrt_capture *c = &o->capture;
    if (nlanes != NULL)
        *nlanes = 1 + c->njoined;
    for (uint32_t i = 0; i < c->njoined; i++)
        aclrt_capture_leave(c->joined[i]);
    free(c->joined);
    c->joined = NULL;
    c->njoined = c->joined_cap = 0;
    free(c->marks);
    c->marks = NULL;
    c->nmarks = c->marks_cap = 0;
    *tasks = c->tasks;
    *count = c->count;
    if (lanes != NULL)
        *lanes = c->lanes;
    else
        free(c->lanes);
    c->tasks = NULL;
    c->lanes = NULL;
    c->count = c->cap = 0;
    for (struct aclrt_stream **p = &aclrt_capture_active; *p != NULL; p = &(*p)->capture.next_active)
        if (*p == o) {
            *p = c->next_active;
            break;
        }
    c->next_active = NULL;
    c->grp_open = false;
    c->update = NULL;
    atomic_fetch_sub_explicit(&aclrt_captures_under_way, 1, memory_order_relaxed); /* a hint (capture.h) */
    aclrt_capture_leave(o);
}

/* End the capture whose origin is o (under the capture lock); its tasks go to the caller, their lanes go. */
ACLRT_INTERNAL void aclrt_capture_finish(struct aclrt_stream *o, struct aclrt_task **tasks, uint32_t *count)
{
    aclrt_capture_finish_lanes(o, tasks, count, NULL, NULL);
}

/* A joined stream of origin o that the origin has not joined back (under the capture lock); NULL: none. */
ACLRT_INTERNAL struct aclrt_stream *aclrt_capture_unjoined(struct aclrt_stream *o)
{
    struct aclrt_capture *c = &o->capture;
    for (uint32_t i = 0; i < c->njoined; i++)
        if (c->joined[i]->capture.rejoined <= c->joined[i]->capture.last)
            return c->joined[i];
    return NULL;
}

/*
 * Throw away a capture s takes part in (s goes: a device reset, a context's
 * release, aclFinalize). An origin's tasks never run and its model stays,
 * unbuilt, until destroyed (model_destroy.h); a joined stream leaves, and the
 * capture, which would miss what it did, is invalidated.
 */
ACLRT_INTERNAL void aclrt_stream_capture_discard(struct aclrt_stream *s)
{
    /* A forked child leaves the inherited captures alone: their lock may be held by a thread it does not have. */
    if ((!aclrt_stream_capturing(s) && aclrt_stream_bound(s) == NULL) || aclrt_runtime_orphaned())
        return;
    struct aclrt_task *tasks = NULL;
    uint32_t count = 0;
    aclrt_capture_lock();
    struct aclrt_build *b = aclrt_stream_bound(s);
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        struct aclrt_stream *o = s->capture.origin;
        if (o == NULL) {
            if (b != NULL)
                b->lost = true; /* a bound stream gone with tasks not handed over: the build would miss them */
            aclrt_capture_finish(s, &tasks, &count);
        } else {
            struct aclrt_capture *oc = &o->capture;
            for (uint32_t i = 0; i < oc->njoined; i++)
                if (oc->joined[i] == s) {
                    oc->joined[i] = oc->joined[--oc->njoined];
                    break;
                }
            oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            aclrt_capture_leave(s);
        }
    }
    if (b != NULL)
        aclrt_build_unbind(b, s); /* a bound stream that goes is unbound */
    aclrt_capture_unlock();
    aclrt_capture_drop_tasks(tasks, count);
}

/*
 * A call that is unsafe while a capture is under way (a synchronous copy or
 * memset: work no capture sees, done at the call), as the runtime decides
 * it from the captures' modes and the calling thread's [src]: refused with
 * ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT. The captures of every context
 * count (the runtime looks at the current context's).
 */
static ACLRT_NOINLINE aclError aclrt_capture_check_unsafe_slow(const char *what)
{
    aclmdlRICaptureMode mine = aclrt_capture_thread_mode;
    if (mine == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return ACL_SUCCESS;
    /* The strictest mode of the captures under way, and of those this thread began (RELAXED + 1: none). */
    uint32_t any = ACL_MODEL_RI_CAPTURE_MODE_RELAXED + 1, own = ACL_MODEL_RI_CAPTURE_MODE_RELAXED + 1;
    uint32_t tid = aclrt_thread_tid();
    aclrt_capture_lock();
    for (struct aclrt_stream *o = aclrt_capture_active; o != NULL; o = o->capture.next_active) {
        if (o->capture.mode < any)
            any = o->capture.mode;
        if (o->capture.tid == tid && o->capture.mode < own)
            own = o->capture.mode;
    }
    aclrt_capture_unlock();
    bool refused = mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
                       ? any == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || own == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL
                       : own <= ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    if (!refused)
        return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                      "%s is not allowed while a capture is under way in mode %s%s (this thread's mode: %s); "
                      "aclmdlRICaptureThreadExchangeMode(RELAXED) allows it on this thread",
                      what, any == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ? "GLOBAL" : "THREAD_LOCAL",
                      own <= ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL ? ", one begun on this thread" : "",
                      mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ? "GLOBAL" : "THREAD_LOCAL");
}

/* aclrt_capture_check_unsafe_slow behind one relaxed load when no capture is under way. */
ACLRT_INLINE aclError aclrt_capture_check_unsafe(const char *what)
{
    if (ACLRT_LIKELY(!aclrt_capture_any()))
        return ACL_SUCCESS;
    return aclrt_capture_check_unsafe_slow(what);
}

/*
 * A call that acts on a capturing stream other than by submitting a task
 * (a reset, a notify, a value op: what it does at the call would not be in
 * the model): refused, and the capture is invalidated. ACL_SUCCESS if the
 * capture ended meanwhile.
 */
static ACLRT_NOINLINE aclError aclrt_stream_refuse_captured(struct aclrt_stream *s)
{
    aclrt_capture_lock();
    uint32_t status = s->capture.status;
    if (status != ACL_MODEL_RI_CAPTURE_STATUS_NONE)
        aclrt_capture_invalidate(s);
    aclrt_capture_unlock();
    if (status == ACL_MODEL_RI_CAPTURE_STATUS_NONE)
        return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                      "stream %d is capturing a model (aclmdlRICaptureBegin or aclmdlRIBindStream) and this call "
                      "cannot be captured; the capture is invalidated (aclmdlRICaptureEnd, or aclmdlRIEndTask for "
                      "a bound stream, returns ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED)",
                      (int)aclrt_slot_index(&s->hdr));
}

/*
 * The checks of a call that may act at the call instead of submitting a
 * task: the context's stop-on-failure state, and no capture under way.
 */
ACLRT_INLINE aclError aclrt_stream_check_context(struct aclrt_stream *s)
{
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s))) {
        aclError rc = aclrt_stream_refuse_captured(s);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return aclrt_stream_check_failure(s);
}

/* A capture call found s not capturing (the capture ended meanwhile): the call goes on as usual. */
#define ACLRT_CAPTURE_ENDED 1

/* The capture of s is invalidated: what a call that would add to it returns (under the lock, which it releases). */
ACLRT_INTERNAL aclError aclrt_capture_refuse_invalidated(struct aclrt_stream *s)
{
    aclrt_capture_unlock();
    return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                      "the capture stream %d takes part in was invalidated by an earlier call; end it "
                      "(aclmdlRICaptureEnd)",
                      (int)aclrt_slot_index(&s->hdr));
}

/*
 * Submission to a capturing stream: the record is copied into the capture
 * (it takes over what the task holds) and nothing runs; *number gets a
 * count the stream has reached, so a caller that waits for "its" task goes
 * on. ACLRT_CAPTURE_ENDED: the capture ended meanwhile, submit for real.
 */
ACLRT_INTERNAL ACLRT_NOINLINE aclError aclrt_stream_capture_task(struct aclrt_stream *s, const struct aclrt_task *task,
                                                        uint64_t *number)
{
    aclrt_capture_lock();
    if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        aclrt_capture_unlock();
        return ACLRT_CAPTURE_ENDED;
    }
    struct aclrt_stream *o = aclrt_capture_origin(s);
    struct aclrt_capture *oc = &o->capture;
    int id = (int)aclrt_slot_index(&s->hdr);
    if (oc->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    if (!aclrt_capture_kind_ok(task->kind->id)) {
        oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                          "stream %d is capturing a model and a %s task cannot be captured; the capture is "
                          "invalidated (aclmdlRICaptureEnd, or aclmdlRIEndTask for a bound stream, returns "
                          "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED)",
                          id, task->kind->name);
    }
    struct aclrt_task copy = *task;
    copy.tid = aclrt_thread_tid();
    if (!aclrt_capture_append(oc, &copy, s->capture.lane)) {
        oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "out of memory for a captured task of stream %d; the capture is invalidated", id);
    }
    if (o != s)
        s->capture.last = oc->count;
    aclrt_capture_unlock();
    if (number != NULL)
        *number = aclrt_seq_read(&s->completed);
    return ACL_SUCCESS;
}

/*
 * aclrtRecordEvent on a capturing stream: the event is not recorded; the
 * capture keeps a mark of it (the stream, the place), for the waits that
 * join streams to the capture. (A record the replay makes is a task:
 * event_record.h, ACLRT_TASK_MODEL_RECORD.)
 */
ACLRT_INTERNAL ACLRT_NOINLINE aclError aclrt_capture_mark_event(struct aclrt_stream *s, struct aclrt_event *e,
                                                       uint32_t generation)
{
    aclrt_capture_lock();
    if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        aclrt_capture_unlock();
        return ACLRT_CAPTURE_ENDED;
    }
    struct aclrt_capture *oc = &aclrt_capture_origin(s)->capture;
    if (oc->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    struct aclrt_capture_mark *m = NULL;
    for (uint32_t i = 0; i < oc->nmarks && m == NULL; i++)
        if (oc->marks[i].event == e && oc->marks[i].generation == generation)
            m = &oc->marks[i];
    if (m == NULL) {
        if (!aclrt_capture_grow((void **)&oc->marks, &oc->marks_cap, oc->nmarks, sizeof *oc->marks)) {
            oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            aclrt_capture_unlock();
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                              "out of memory for an event recorded in a capture; the capture is invalidated");
        }
        m = &oc->marks[oc->nmarks++];
        m->event = e;
        m->generation = generation;
    }
    m->stream = s;
    m->pos = oc->count;
    aclrt_capture_unlock();
    return ACL_SUCCESS;
}

/*
 * A stream wait for an event while captures are under way (s capturing, or
 * any capture): an event recorded in a capture joins s to that capture, or
 * (the origin waiting) joins the stream it was recorded on back; within the
 * capture the wait is no task (the capture's order already follows it). A
 * capturing stream waiting for any other event is refused (and its capture
 * invalidated). ACLRT_CAPTURE_ENDED: no capture is involved, the wait goes
 * on as usual.
 */
ACLRT_INTERNAL ACLRT_NOINLINE aclError aclrt_capture_wait_event(struct aclrt_stream *s, struct aclrt_event *e,
                                                       uint32_t generation)
{
    aclrt_capture_lock();
    struct aclrt_stream *o = NULL;
    const struct aclrt_capture_mark *m = NULL;
    for (struct aclrt_stream *a = aclrt_capture_active; a != NULL && m == NULL; a = a->capture.next_active)
        for (uint32_t i = 0; i < a->capture.nmarks; i++)
            if (a->capture.marks[i].event == e && a->capture.marks[i].generation == generation) {
                o = a;
                m = &a->capture.marks[i];
                break;
            }
    bool capturing = s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    int id = (int)aclrt_slot_index(&s->hdr);
    if (m == NULL) {
        if (capturing)
            aclrt_capture_invalidate(s);
        aclrt_capture_unlock();
        if (!capturing)
            return ACLRT_CAPTURE_ENDED;
        return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                          "stream %d is capturing a model and waits for an event not recorded in its capture (a "
                          "dependency on work outside the model); the capture is invalidated",
                          id);
    }
    /* An event recorded by a build's bound stream: a stream outside the build waits as usual (no join). */
    if (!capturing && aclrt_capture_is_build(o)) {
        aclrt_capture_unlock();
        return ACLRT_CAPTURE_ENDED;
    }
    if (capturing && aclrt_capture_origin(s) != o) {
        aclrt_capture_invalidate(s);
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                          "stream %d is capturing a model and waits for an event recorded in another capture; its "
                          "capture is invalidated",
                          id);
    }
    if (o->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    if (!capturing) {
        if (s->ctx != o->ctx || !aclrt_capture_join(o, s)) {
            o->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            aclrt_capture_unlock();
            return aclrt_fail(s->ctx != o->ctx ? ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT : ACL_ERROR_RT_MEMORY_ALLOCATION,
                              "stream %d cannot join the capture of stream %d (%s); the capture is invalidated", id,
                              (int)aclrt_slot_index(&o->hdr),
                              s->ctx != o->ctx ? "another context" : "out of memory");
        }
    } else if (s == o && m->stream != o && m->stream->capture.origin == o &&
               m->stream->capture.rejoined < m->pos + 1) {
        m->stream->capture.rejoined = m->pos + 1;
    }
    aclrt_capture_unlock();
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_STREAM_STREAM_CAPTURE_H */
