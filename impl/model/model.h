/*
 * impl/model/model.h - models (aclmdlRI) captured from a stream, and their replay.
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
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_sync.h"
#include "../context/stream_api.h"
#include "../exec/callback.h"
#include "../exec/exec.h"
#include "cond.h"
#include "label.h"

#define ACLRT_MODEL_CAPTURING 0u /* aclmdlRICaptureBegin .. End */
#define ACLRT_MODEL_READY 1u     /* built: replays run its body */
#define ACLRT_MODEL_BUILDING 2u  /* aclmdlRIBuildBegin .. BuildEnd */
#define ACLRT_MODEL_BRANCH 3u    /* a conditional task's branch whose capture has not begun (model_cond.h) */
#define ACLRT_MODEL_NAME_MAX 127u /* the longest aclmdlRISetName name, in bytes */

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
static void aclrt_model_life_put(struct aclrt_model_life *l)
{
    /* Acq_rel: the last one sees the callbacks the retirement handed over (before its own put). */
    if (l == NULL || atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (uint32_t i = 0; i < l->ncbs; i++)
        l->cbs[i].fn(l->cbs[i].user_data);
    free(l->cbs);
    free(l);
}

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
ACLRT_INTERNAL bool aclrt_model_lock_alive(struct aclrt_model *m, const void *h)
{
    aclrt_model_lock(m);
    if ((struct aclrt_model *)aclrt_table_lookup(&aclrt_models, h) == m)
        return true;
    aclrt_model_unlock(m);
    return false;
}

/* The live model a handle names, locked. */
ACLRT_INTERNAL aclError aclrt_model_get(aclmdlRI modelRI, struct aclrt_model **out)
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
    free(b);
    aclrt_model_life_put(life);
}

/* Let go of a condition (cond.h); the last reference lets go of its branches' bodies. */
static void aclrt_cond_put(struct aclrt_cond *c)
{
    if (c == NULL || !aclrt_cond_unref(c))
        return;
    for (uint32_t i = 0; c->bodies != NULL && i < c->size; i++)
        if (c->bodies[i] != NULL)
            aclrt_model_body_put(c->bodies[i]);
    aclrt_cond_free(c);
}

/*
 * ACLRT_TASK_COND: the replay loop runs it (aclrt_model_run_cond); this run
 * is only reached by a task that is not a model's step, which none is.
 */
static int aclrt_cond_task_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s;
    (void)t;
    (void)blk;
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static void aclrt_cond_task_drop(struct aclrt_task *t)
{
    aclrt_cond_put(t->u.cond.cond);
    t->u.cond.cond = NULL;
}

static const struct aclrt_task_kind aclrt_kind_cond = {ACLRT_TASK_COND, "conditional task", aclrt_cond_task_run,
                                                       aclrt_cond_task_drop};

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
        struct aclrt_stream *s = b->streams[b->nstreams - 1];
        if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL)
            aclrt_capture_finish(s, &t, &n);
        aclrt_build_unbind(b, s);
        aclrt_capture_unlock();
        aclrt_capture_drop_tasks(t, n);
    }
    free(b->streams);
    free(b->lanes);
    free(b->handed);
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
        struct aclrt_stream *s = m->stream;
        aclrt_capture_lock();
        if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && s->capture.origin == NULL &&
            s->capture.model == m)
            aclrt_capture_finish(s, &pending, &npending);
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
            struct aclrt_model *sub = (struct aclrt_model *)aclrt_table_lookup(&aclrt_models, c->subs[k]);
            if (sub != NULL && aclrt_model_lock_alive(sub, c->subs[k]))
                aclrt_model_retire(sub);
        }
        aclrt_cond_put(c);
    }
    free(conds);
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
 * Wait here, on this thread, for a blocked step (a branch's step, or one
 * there is no memory to keep a copy of), then let go of the park's
 * reference. Yields a while, then sleeps in steps doubling to 1 ms: a
 * long block costs no CPU.
 */
static void aclrt_model_wait_block(struct aclrt_block *blk)
{
    uint64_t pause = 2 * ACLRT_NS_PER_US;
    for (unsigned spins = 0; !aclrt_block_over(blk); spins++) {
        if (spins < 64) {
            sched_yield();
            continue;
        }
        struct timespec ts = {0, (long)pause};
        nanosleep(&ts, NULL);
        pause = aclrt_min_u64(2 * pause, ACLRT_NS_PER_MS);
    }
    if (blk->held != NULL)
        aclrt_report_item_put(blk->held);
    blk->held = NULL;
}

/* Run a step: copy, a fresh copy of the captured record; the backend may run it itself (backend.h: model_step). */
ACLRT_INLINE int aclrt_model_step(struct aclrt_stream *s, struct aclrt_task *copy, const struct aclrt_task *captured,
                                  struct aclrt_block *blk)
{
    return aclrt_rt.backend->model_step != NULL ? aclrt_rt.backend->model_step(s, copy, captured, blk)
                                                : copy->kind->run(s, copy, blk);
}

/* Has aclmdlRIAbort come since the replay t was submitted? Relaxed: nothing is published through the count. */
ACLRT_INLINE bool aclrt_model_aborted(const struct aclrt_task *t)
{
    return atomic_load_explicit(t->u.model.aborts, memory_order_relaxed) != t->u.model.epoch;
}

static int aclrt_model_run_cond(struct aclrt_stream *s, const struct aclrt_task *step, struct aclrt_block *blk,
                                const struct aclrt_task *t);

/*
 * Run a branch's body for the replay t (a conditional task's, cond.h), all
 * of it, on this thread: a step that blocks is waited for here (the
 * replay's own steps park the stream instead).
 */
static int aclrt_model_run_branch(struct aclrt_stream *s, const struct aclrt_model_body *b, struct aclrt_block *blk,
                                  const struct aclrt_task *t)
{
    for (uint32_t i = 0; i < b->count; i++) {
        if (ACLRT_UNLIKELY(aclrt_model_aborted(t)))
            return ACL_SUCCESS;
        int rc;
        if (b->tasks[i].kind == &aclrt_kind_cond) {
            rc = aclrt_model_run_cond(s, &b->tasks[i], blk, t);
        } else {
            struct aclrt_task here;
            aclrt_model_task_copy(&here, &b->tasks[i]);
            aclrt_tls.ctx_handle = NULL; /* as between the stream's own tasks (exec.h) */
            while ((rc = aclrt_model_step(s, &here, &b->tasks[i], blk)) == ACLRT_TASK_BLOCKED) {
                aclrt_model_wait_block(blk);
                *blk = (struct aclrt_block)ACLRT_BLOCK_NONE;
            }
        }
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

/* A conditional task of the replay t: the branch its condition's word picks, now (cond.h). */
static int aclrt_model_run_cond(struct aclrt_stream *s, const struct aclrt_task *step, struct aclrt_block *blk,
                                const struct aclrt_task *t)
{
    const struct aclrt_cond *c = step->u.cond.cond;
    uint64_t word = aclrt_cond_read(c);
    switch (c->type) {
    case ACL_MODEL_RI_COND_TYPE_IF:
        if (word != 0)
            return aclrt_model_run_branch(s, c->bodies[0], blk, t);
        return c->size > 1 ? aclrt_model_run_branch(s, c->bodies[1], blk, t) : ACL_SUCCESS;
    case ACL_MODEL_RI_COND_TYPE_WHILE:
        for (; word != 0 && !aclrt_model_aborted(t); word = aclrt_cond_read(c)) {
            int rc = aclrt_model_run_branch(s, c->bodies[0], blk, t);
            if (rc != ACL_SUCCESS)
                return rc;
        }
        return ACL_SUCCESS;
    default: /* ACL_MODEL_RI_COND_TYPE_SWITCH */
        return word < c->size ? aclrt_model_run_branch(s, c->bodies[word], blk, t) : ACL_SUCCESS;
    }
}

static int aclrt_model_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_model_body *b = t->u.model.body;
    struct aclrt_task *resume = t->u.model.resume;
    struct aclrt_task here;
    int rc = ACL_SUCCESS;
    if (t->u.model.next == 0 && resume == NULL)
        for (uint32_t k = 0; k < b->nstarts; k++)
            aclrt_cond_start(b->starts[k]); /* conditions with a default get it as the replay starts */
    for (uint32_t i = t->u.model.next; i < b->count; i++) {
        struct aclrt_task *sub = resume;
        if (sub == NULL) {
            /* An abort seen late drops one step fewer. */
            if (ACLRT_UNLIKELY(aclrt_model_aborted(t)))
                break; /* aclmdlRIAbort: the rest is dropped, the replay counts as done */
            if (ACLRT_UNLIKELY(b->tasks[i].kind == &aclrt_kind_cond)) {
                if ((rc = aclrt_model_run_cond(s, &b->tasks[i], blk, t)) != ACL_SUCCESS)
                    break;
                continue;
            }
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
        rc = aclrt_model_step(s, sub, &b->tasks[i], blk);
        while (ACLRT_UNLIKELY(rc == ACLRT_TASK_BLOCKED)) {
            if (resume == NULL) {
                resume = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, sizeof *resume);
                if (resume == NULL) {
                    aclrt_model_wait_block(blk);
                    *blk = (struct aclrt_block)ACLRT_BLOCK_NONE;
                    rc = aclrt_model_step(s, sub, &b->tasks[i], blk);
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
    void *handle;
    struct aclrt_model *m = aclrt_model_new(ACLRT_MODEL_CAPTURING, s->ctx, s, NULL, &handle);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model");

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
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE && aclrt_capture_origin(s)->capture.update == NULL) {
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

/*
 * The capture of m ended into body b (m locked): each conditional task's
 * branches must have ended their captures; their bodies go to the
 * condition (a reference each), and the conditions of its tasks that
 * start with a default, and the branches' such, to b->starts. Lock order: a
 * model, then its branches.
 */
static aclError aclrt_model_resolve_conds(struct aclrt_model *m, struct aclrt_model_body *b)
{
    uint32_t nstarts = 0;
    for (uint32_t i = 0; i < m->nconds; i++) {
        struct aclrt_cond *c = m->conds[i];
        if (!c->used)
            continue; /* no task reads it: nothing to start */
        nstarts += c->flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT;
        if (c->bodies == NULL && (c->bodies = (struct aclrt_model_body **)calloc(c->size, sizeof *c->bodies)) == NULL)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a conditional task's branches");
        for (uint32_t k = 0; k < c->size; k++) {
            struct aclrt_model *sub = (struct aclrt_model *)aclrt_table_lookup(&aclrt_models, c->subs[k]);
            bool ready = false;
            if (sub != NULL && aclrt_model_lock_alive(sub, c->subs[k])) {
                if ((ready = sub->state == ACLRT_MODEL_READY) && c->bodies[k] == NULL) {
                    c->bodies[k] = sub->body;
                    atomic_fetch_add_explicit(&sub->body->refs, 1, memory_order_relaxed); /* the branch's keeps it */
                    nstarts += sub->body->nstarts;
                }
                aclrt_model_unlock(sub);
            }
            if (!ready)
                return aclrt_fail(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING,
                                  "branch %u of a conditional task has not ended its capture "
                                  "(aclmdlRICaptureToModelRIBegin .. aclmdlRICaptureEnd); the capture is ended "
                                  "and its model destroyed",
                                  (unsigned)k);
        }
    }
    if (nstarts == 0)
        return ACL_SUCCESS;
    if ((b->starts = (struct aclrt_cond **)malloc((size_t)nstarts * sizeof *b->starts)) == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a model's conditions");
    for (uint32_t i = 0; i < m->nconds; i++) {
        struct aclrt_cond *c = m->conds[i];
        if (c->used && c->flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
            b->starts[b->nstarts++] = c; /* kept by its task in b */
        for (uint32_t k = 0; c->used && k < c->size; k++)
            for (uint32_t j = 0; j < c->bodies[k]->nstarts; j++)
                b->starts[b->nstarts++] = c->bodies[k]->starts[j];
    }
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
    if (aclrt_capture_origin(s)->capture.update != NULL) {
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "stream %p is updating a task group, not capturing (aclmdlRICaptureTaskUpdateEnd ends it)",
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
    uint32_t *lanes, count, nlanes;
    aclrt_capture_finish_lanes(s, &tasks, &count, &lanes, &nlanes);
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
        free(lanes);
        if (aclrt_model_lock_alive(m, handle))
            aclrt_model_retire(m);
        return rc;
    }
    atomic_init(&b->refs, 1);
    b->count = count;
    b->tasks = tasks;
    b->lanes = lanes;
    b->nlanes = nlanes;
    b->lane_streams = NULL;
    b->root = NULL;
    b->pieces = NULL;
    b->npieces = 0;
    b->starts = NULL;
    b->nstarts = 0;
    b->life = NULL; /* set with the model's lock below */
    atomic_init(&b->ext, NULL); /* the backend's state: none yet */
    /* A destroy that came between the capture's end and here (another thread's) took the model away. */
    if (!aclrt_model_lock_alive(m, handle)) {
        aclrt_capture_drop_tasks(tasks, count);
        free(lanes);
        free(b);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "the capture's model was destroyed while the capture ended");
    }
    if (m->nconds > 0 && (rc = aclrt_model_resolve_conds(m, b)) != ACL_SUCCESS) {
        aclrt_model_retire(m);
        aclrt_model_body_put(b);
        return rc;
    }
    b->life = aclrt_model_life_get(m);
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
    if (m->parent != NULL) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "modelRI %p is a branch of a conditional task (aclmdlRIAddCondTask); it runs inside the "
                          "replays of its model only",
                          modelRI);
    }
    if (m->update != 0) {
        bool fault = m->update == ACLRT_MODEL_UPDATE_FAULT;
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_MODEL_EXECUTE,
                          fault ? "modelRI %p is faulty: a change of its tasks failed (destroy it)"
                                : "modelRI %p has changes of its tasks staged; aclmdlRIUpdate applies them first",
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
    uint32_t epoch = atomic_load_explicit(&m->aborts, memory_order_relaxed); /* under the lock aclmdlRIAbort takes */
    aclrt_model_unlock(m);
    struct aclrt_task t = {.kind = &aclrt_kind_model,
                           .u.model.body = b,
                           .u.model.aborts = &m->aborts,
                           .u.model.epoch = epoch};
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
    if (m->parent != NULL) {
        aclrt_model_unlock(m);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "modelRI %p is a branch of a conditional task (aclmdlRIAddCondTask); it is destroyed with "
                          "its model",
                          modelRI);
    }
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

#endif /* ACLRT_IMPL_MODEL_MODEL_H */
