/*
 * impl/model/model.h - a model (aclmdlRI), captured from a stream or built:
 * the object, its table and lock, its body and its life.
 *
 * aclmdlRICaptureBegin makes the model (its handle is what
 * aclmdlRICaptureGetInfo reports) and starts the stream's capture
 * (capture.h); aclmdlRICaptureEnd moves the recorded tasks into the model's
 * body (model_capture.h). The body is immutable from then on and
 * reference-counted: the model holds one reference, every replay in flight
 * one more (model_replay.h), so aclmdlRIDestroy (model_destroy.h) returns
 * at once and a pending replay still runs to the end; the last reference
 * drops what the tasks hold (kernel argument copies, binaries counted in
 * flight).
 *
 * A model built explicitly (aclmdlRIBuildBegin .. BuildEnd: model_build.h)
 * starts empty and gets its body from the streams bound to it. Lock order:
 * a model's lock, then the capture lock. A label switch step (label.h)
 * makes the replay go on after the label its index picks. Task groups and
 * their update (model_update.h) give later replays a new body.
 *
 * Task groups (aclmdlRICaptureTaskGrpBegin .. End, capture.h) name a run
 * of a captured model's steps; an update (aclmdlRICaptureTaskUpdateBegin
 * .. End) collects another stream's tasks as a capture in RELAXED mode
 * would and, at its end, gives the model a new body (copy-on-write, under
 * the model's lock) with the group's steps replaced: replays submitted
 * before keep the body they hold.
 *
 * Each slot has a small lock, in the slot (whose memory lives as long as
 * the table): a lookup takes it and checks the handle again, so a replay's
 * reference and a destroy never cross.
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_H
#define ACLRT_IMPL_MODEL_MODEL_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../task/capture.h"
#include "../../backends/backend.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "spin_lock.h"

struct aclrt_cond; /* cond.h */

#define ACLRT_MODEL_CAPTURING 0u /* aclmdlRICaptureBegin .. End */
#define ACLRT_MODEL_READY 1u     /* built: replays run its body */
#define ACLRT_MODEL_BUILDING 2u  /* aclmdlRIBuildBegin .. BuildEnd */
#define ACLRT_MODEL_BRANCH 3u    /* a conditional task's branch whose capture has not begun (model_cond.h) */
#define ACLRT_MODEL_NAME_MAX 127u /* the longest aclmdlRISetName name, in bytes */

#define ACLRT_LANE_HEAD 0u      /* a built body's lane that runs from the start (lane_mode) */
#define ACLRT_LANE_ACTIVATED 1u /* one that runs when a step activates it */
#define ACLRT_LANE_CLEANED 2u   /* one whose tasks aclrtPersistentTaskClean removed */

#define ACLRT_MODEL_UPDATING 1u     /* changes staged (model_params.h): not executed until aclmdlRIUpdate */
#define ACLRT_MODEL_UPDATE_FAULT 2u /* a change failed: not executed, not updated */

/*
 * A body as captured owns its tasks. A body made by an update of a task
 * group (aclmdlRICaptureTaskUpdateEnd) is a copy of the captured body's
 * task records with each updated group's records replaced by its latest
 * update's (a "piece", a body of its own); it owns none of them and holds
 * a reference to the captured body and to each piece instead.
 */
struct aclrt_model_body {
    _Atomic uint32_t refs; /* the model's, and one per replay not done (a piece: its group's, and bodies') */
    uint32_t count;
    struct aclrt_task *tasks; /* as captured (cache-line aligned) */
    /*
     * The streams the tasks were submitted to (model_tasks.h): task i's is
     * lanes[i], one of `nlanes`. Captured: 0 the origin, then the streams
     * that joined, in the order they did; built: lane_streams[lanes[i]],
     * the bound streams that handed tasks over. An updated body shares
     * its root's (an update keeps every task's place).
     */
    uint32_t *lanes;
    uint32_t nlanes;
    struct aclrt_stream **lane_streams; /* built only, else NULL */
    /*
     * Built only: per lane, how it runs (stream_activate.h):
     * ACLRT_LANE_HEAD from the start, in order with the other such lanes;
     * ACLRT_LANE_ACTIVATED (its stream was bound with
     * ACL_MODEL_STREAM_FLAG_DEFAULT) only when a step activates it, in
     * parallel with the rest; ACLRT_LANE_CLEANED never
     * (aclrtPersistentTaskClean). NULL: every lane is a head lane. Owned
     * by the body, whether or not it owns its tasks.
     */
    uint8_t *lane_mode;
    /* The model's abort count (its slot's: lives as long as the table); set when the model takes the body. */
    const _Atomic uint32_t *aborts;
    /*
     * Conditions a replay sets to their default when it starts (cond.h):
     * the model's and its branches', at any depth. Their conditional
     * tasks, in this body or in a branch's it holds, keep them. An updated
     * body shares its root's.
     */
    struct aclrt_cond **starts;
    uint32_t nstarts;
    struct aclrt_model_life *life; /* a body that owns its tasks: a reference to its model's life */
    struct aclrt_model_body *root;    /* an updated body: the captured one; NULL: this one owns its tasks */
    struct aclrt_model_body **pieces; /* an updated body: the pieces it took records from */
    uint32_t npieces;
    /*
     * The backend's state for this body (backends/backend.h: the cuda
     * backend's CUDA graph of it), made at its first replay and published
     * once (CAS, release; read acquire); the last reference releases it.
     * NULL: none.
     */
    struct aclrt_model_ext *_Atomic ext;
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
    _Atomic uint32_t aborts;       /* aclmdlRIAbort calls, over the slot's lives (never reset: model_query.h) */
    void *parent;                  /* a conditional task's branch: the handle of the model it belongs to */
    struct aclrt_destroy_cb *destroy_cbs; /* aclmdlRIDestroyRegisterCallback, in registration order */
    uint32_t ndestroy_cbs, destroy_cbs_cap;
    struct aclrt_model_life *life;        /* the model's reference (aclrt_model_life) */
    uint32_t update;                  /* 0, ACLRT_MODEL_UPDATING or ACLRT_MODEL_UPDATE_FAULT (model_params.h) */
    struct aclrt_model_edit *edits;   /* staged changes, by step */
    uint32_t nedits, edits_cap;
    struct aclrt_cond **conds;     /* aclmdlRICondHandleCreate on it (a reference each; model_cond.h) */
    uint32_t nconds, conds_cap;
    uint32_t name_len;             /* aclmdlRISetName (model_query.h); 0: none */
    char name[ACLRT_MODEL_NAME_MAX + 1];
};

/* A staged change of a captured model's step (model_params.h): its new record, or NULL (disabled). */
struct aclrt_model_edit {
    uint32_t step;
    struct aclrt_task *record; /* owns what it holds (cache-line aligned, alone) */
};

/* Free staged changes (what their records hold goes too). */
ACLRT_INTERNAL void aclrt_model_edits_free(struct aclrt_model_edit *edits, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (edits[i].record != NULL)
            aclrt_capture_drop_tasks(edits[i].record, 1);
    free(edits);
}

/* A destroy callback: fn(user_data) once the model is destroyed and no replay of it is left. */
struct aclrt_destroy_cb {
    aclrtCallback fn;
    void *user_data;
};

/*
 * What outlives a model as long as a body of it does: its destroy
 * callbacks. The model holds a reference, and so does every body that owns
 * its tasks (a capture's, a build's, an update's: aclmdlRIUpdate makes
 * such a body while replays of the old one may still run); a body made by
 * a task-group update holds its root. The model's retirement hands the
 * callbacks over (under the model's lock, before it lets go of its
 * reference); the last reference runs them.
 */
struct aclrt_model_life {
    _Atomic uint32_t refs;
    struct aclrt_destroy_cb *cbs;
    uint32_t ncbs;
};

static struct aclrt_table aclrt_models = ACLRT_TABLE_INIT(ACLRT_KIND_MODEL, struct aclrt_model, "model");

/* A reference to m's life for a new body (m locked). */
ACLRT_INTERNAL struct aclrt_model_life *aclrt_model_life_get(struct aclrt_model *m)
{
    atomic_fetch_add_explicit(&m->life->refs, 1, memory_order_relaxed); /* the model's keeps it */
    return m->life;
}

/* Let go of a life; the last reference runs the destroy callbacks (no lock held: they may call the runtime). */
ACLRT_INTERNAL void aclrt_model_life_put(struct aclrt_model_life *l)
{
    /* Acq_rel: the last one sees the callbacks the retirement handed over (before its own put). */
    if (l == NULL || atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (uint32_t i = 0; i < l->ncbs; i++)
        l->cbs[i].fn(l->cbs[i].user_data);
    free(l->cbs);
    free(l);
}

/* m's lock (spin_lock.h): over its fields and its slot's life. */
ACLRT_INLINE void aclrt_model_lock(struct aclrt_model *m)
{
    aclrt_spin_lock(&m->lock);
}

ACLRT_INLINE void aclrt_model_unlock(struct aclrt_model *m)
{
    aclrt_spin_unlock(&m->lock);
}

/* Lock m if the handle h still names it (true); otherwise leave it alone (false). */
ACLRT_INTERNAL bool aclrt_model_lock_alive(struct aclrt_model *m, const void *h)
{
    aclrt_model_lock(m);
    if ((struct aclrt_model *)aclrt_table_lookup(&aclrt_models, h) == m)
        return true;
    aclrt_model_unlock(m);
    return false;
}

/* The live model a handle names, locked; NULL: none (destroyed, stale or garbage). */
ACLRT_INTERNAL struct aclrt_model *aclrt_model_lock_handle(const void *h)
{
    struct aclrt_model *m = (struct aclrt_model *)aclrt_table_lookup(&aclrt_models, h);
    return m != NULL && aclrt_model_lock_alive(m, h) ? m : NULL;
}

/* The live model a handle names, locked (an API argument: refused with an error). */
ACLRT_INTERNAL aclError aclrt_model_get(aclmdlRI modelRI, struct aclrt_model **out)
{
    if (modelRI == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
    struct aclrt_model *m = aclrt_model_lock_handle(modelRI);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "modelRI %p is not a live model (destroyed, stale or garbage)",
                          modelRI);
    *out = m;
    return ACL_SUCCESS;
}

/*
 * A new model in `state`, of context ctx (stream: the capturing one, or
 * NULL; parent: a branch's model handle, or NULL), published with its
 * handle in *handle; NULL: out of memory. The fields a retirement does not
 * reset are set here.
 */
ACLRT_INTERNAL struct aclrt_model *aclrt_model_new(uint32_t state, struct aclrt_context *ctx, struct aclrt_stream *stream,
                                           void *parent, void **handle)
{
    struct aclrt_model_life *life = (struct aclrt_model_life *)calloc(1, sizeof *life);
    struct aclrt_model *m = life != NULL ? (struct aclrt_model *)aclrt_table_alloc(&aclrt_models) : NULL;
    if (m == NULL) {
        free(life);
        return NULL;
    }
    atomic_init(&life->refs, 1); /* the model's */
    aclrt_model_lock(m); /* a late lookup of the slot's previous life may still hold it */
    m->life = life;
    m->state = state;
    m->ctx = ctx;
    m->stream = stream;
    m->body = NULL;
    m->built = state == ACLRT_MODEL_BUILDING;
    m->build = (struct aclrt_build){0};
    m->parent = parent;
    *handle = aclrt_table_publish(&aclrt_models, &m->hdr);
    aclrt_model_unlock(m);
    return m;
}

/*
 * Make b, just allocated, a body of tasks[0 .. count), task i submitted
 * to lane lanes[i] of nlanes, with one reference (the caller's). The rest
 * is empty: the caller sets what the body has (a built body's streams,
 * the conditions it starts, its life, an updated body's root and pieces).
 */
ACLRT_INTERNAL void aclrt_model_body_init(struct aclrt_model_body *b, struct aclrt_task *tasks, uint32_t count,
                                          uint32_t *lanes, uint32_t nlanes)
{
    atomic_init(&b->refs, 1);
    b->count = count;
    b->tasks = tasks;
    b->lanes = lanes;
    b->nlanes = nlanes;
    b->lane_streams = NULL;
    b->lane_mode = NULL;
    b->starts = NULL;
    b->nstarts = 0;
    b->life = NULL;
    b->root = NULL;
    b->pieces = NULL;
    b->npieces = 0;
    atomic_init(&b->ext, NULL); /* the backend's state: none yet */
}

ACLRT_INTERNAL void aclrt_model_body_put(struct aclrt_model_body *b)
{
    /* Acq_rel: the last one to let go sees every replay's end (their reads of the tasks). */
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
        return;
    struct aclrt_model_life *life = b->life;
    /* Relaxed: the acq_rel above orders the publication (a release CAS) before this. */
    struct aclrt_model_ext *ext = atomic_load_explicit(&b->ext, memory_order_relaxed);
    if (ext != NULL)
        ext->release(ext); /* the backend's state goes first: it may use the tasks (a graph of them) */
    if (b->root == NULL) {
        aclrt_capture_drop_tasks(b->tasks, b->count);
        free(b->lanes);
        free(b->lane_streams);
        free(b->starts);
    } else {
        free(b->tasks); /* copies: the root and the pieces own what they hold */
        for (uint32_t i = 0; i < b->npieces; i++)
            aclrt_model_body_put(b->pieces[i]);
        free(b->pieces);
        aclrt_model_body_put(b->root);
    }
    free(b->lane_mode);
    free(b);
    aclrt_model_life_put(life);
}

/*
 * Does m's stream still capture it (m capturing; capture lock held)? A
 * capture that went with its stream (stream_capture.h:
 * aclrt_stream_capture_discard) left it behind.
 */
ACLRT_INLINE bool aclrt_model_captured(const struct aclrt_model *m)
{
    const struct aclrt_capture *c = &m->stream->capture;
    return c->status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && c->origin == NULL && c->model == m;
}

/*
 * Unbind s from m's build (m locked, capture lock held): tasks s still
 * collects never make it into the model; they go to *tasks, *count (left
 * alone if none), to drop outside the capture lock (a drop may unload a
 * binary).
 */
ACLRT_INTERNAL void aclrt_model_unbind_stream(struct aclrt_model *m, struct aclrt_stream *s, struct aclrt_task **tasks,
                                              uint32_t *count)
{
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL)
        aclrt_capture_finish(s, tasks, count);
    aclrt_build_unbind(&m->build, s);
}

#endif /* ACLRT_IMPL_MODEL_MODEL_H */
