/*
 * impl/model/model_replay.h - the replay of a model (aclmdlRIExecuteAsync,
 * aclmdlRIExecute): the ACLRT_TASK_MODEL task kind.
 *
 * A replay (aclmdlRIExecuteAsync) is ONE task of the stream (kind
 * ACLRT_TASK_MODEL): its run runs the captured tasks in order on the
 * executing thread, each from a fresh copy of its record, so no replay
 * changes the model. A task that blocks (a host function handed to a
 * subscribed thread) blocks the model task: the copy is kept, the stream
 * parks as for any blocked task, and the model task resumes with it. The
 * first failing task ends the replay with its code (later tasks do not run).
 *
 * The replay holds a reference to the body it was submitted with
 * (model.h). A label switch step (label.h) makes it go on after the label
 * its index picks; a conditional task (cond.h) runs the body of the branch
 * its condition picks, in place.
 *
 * A built body with lanes that run when activated (stream_activate.h):
 * the replay's loop runs the head lanes' steps only; an activation starts
 * a thread that runs the activated lane's steps (struct
 * aclrt_model_lanes, made at the first activation and kept in the replay
 * task across a block), and the replay ends once its own steps are done
 * and every thread it started has ended (their first error is its).
 */
#ifndef ACLRT_IMPL_MODEL_MODEL_REPLAY_H
#define ACLRT_IMPL_MODEL_MODEL_REPLAY_H

#include "../core/base.h"
#include "../core/sanitize_hook.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
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
#include "model.h"
#include "stream_activate.h"
#include "model_subscribe.h"

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

/* A blocked step's block is over: the condition of a driven wait (seq.h). */
static bool aclrt_model_block_over(const void *arg)
{
    return aclrt_block_over((const struct aclrt_block *)arg);
}

/*
 * Wait here, on this thread, for a blocked step (a branch's step, or one
 * there is no memory to keep a copy of), then let go of the park's
 * reference: blk is none again, for the step's next run. Yields a while,
 * then sleeps in steps doubling to 1 ms: a long block costs no CPU. With a
 * driver of the waits (seq.h), this thread runs the other streams' work
 * meanwhile.
 */
static void aclrt_model_wait_block(struct aclrt_block *blk)
{
    const struct aclrt_seq_driver *d = aclrt_seq_driven();
    if (ACLRT_UNLIKELY(d != NULL))
        while (d->wait(aclrt_model_block_over, blk, ACLRT_NO_DEADLINE, NULL, NULL, false) != 0)
            ;
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
    *blk = (struct aclrt_block)ACLRT_BLOCK_NONE;
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
    return atomic_load_explicit(t->u.model.body->aborts, memory_order_relaxed) != t->u.model.epoch;
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
            while ((rc = aclrt_model_step(s, &here, &b->tasks[i], blk)) == ACLRT_TASK_BLOCKED)
                aclrt_model_wait_block(blk);
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

/*
 * The lanes a replay started (a built body with activated lanes). The
 * lock is over `running`, `stopped` and the threads; `error` is the first
 * failure of a started lane.
 */
struct aclrt_model_lanes {
    struct aclrt_task replay; /* first (cache-line aligned): the replay's abort count and epoch, for its lanes */
    pthread_mutex_t lock;
    struct aclrt_stream *s;
    const struct aclrt_model_body *b;
    uint8_t *running; /* per lane: a thread runs it now (an activation then starts nothing) */
    uint8_t *stopped; /* per head lane: a switch on it held, the replay's loop runs no more of it */
    pthread_t *threads; /* started, not joined yet */
    uint32_t nthreads, threads_cap;
    _Atomic int error;
};

/* What a lane's thread is given. */
struct aclrt_lane_start {
    struct aclrt_model_lanes *run;
    uint32_t lane;
};

static void aclrt_lanes_activate(struct aclrt_model_lanes *run, uint32_t lane);

/* A lane's failure: the replay's unless an earlier one came first. */
static void aclrt_lanes_fail(struct aclrt_model_lanes *run, int rc)
{
    int none = ACL_SUCCESS;
    atomic_compare_exchange_strong_explicit(&run->error, &none, rc, memory_order_relaxed, memory_order_relaxed);
}

/*
 * Run an activation or switch step on a lane (*stop: the lane goes no
 * further, a switch held). ACL_SUCCESS, or the code of a value that could
 * not be read.
 */
static int aclrt_lanes_step(struct aclrt_model_lanes *run, const struct aclrt_task *step, bool *stop)
{
    *stop = false;
    if (step->kind == &aclrt_kind_stream_switch) {
        int rc = aclrt_switch_holds(step, stop);
        if (rc != ACL_SUCCESS || !*stop)
            return rc;
    }
    if (step->u.activate.lane != ACLRT_LANE_NONE)
        aclrt_lanes_activate(run, step->u.activate.lane);
    return ACL_SUCCESS;
}

/* Run the steps of one lane on this thread, from its first; a step that blocks is waited for here. */
static int aclrt_lane_run(struct aclrt_model_lanes *run, uint32_t lane)
{
    const struct aclrt_model_body *b = run->b;
    struct aclrt_stream *s = run->s;
    struct aclrt_block blk = ACLRT_BLOCK_NONE;
    for (uint32_t i = 0; i < b->count; i++) {
        const struct aclrt_task *step = &b->tasks[i];
        if (b->lanes[i] != lane)
            continue;
        if (aclrt_model_aborted(&run->replay))
            return ACL_SUCCESS;
        int rc = ACL_SUCCESS;
        if (step->kind == &aclrt_kind_cond) {
            rc = aclrt_model_run_cond(s, step, &blk, &run->replay);
        } else if (step->kind == &aclrt_kind_label_switch) {
            uint32_t to;
            if ((rc = aclrt_label_switch_target(step, &to)) == ACL_SUCCESS)
                i = to; /* the label's step: the loop goes on after it, on this lane's steps */
        } else if (aclrt_is_activation(step)) {
            bool stop;
            if ((rc = aclrt_lanes_step(run, step, &stop)) == ACL_SUCCESS && stop)
                return ACL_SUCCESS;
        } else {
            struct aclrt_task here;
            aclrt_model_task_copy(&here, step);
            aclrt_tls.ctx_handle = NULL; /* as between the stream's own tasks (exec.h) */
            while ((rc = aclrt_model_step(s, &here, step, &blk)) == ACLRT_TASK_BLOCKED)
                aclrt_model_wait_block(&blk);
        }
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

/* A started lane's thread: runs the lane as a task of the replay's stream would. */
static void *aclrt_lane_thread(void *arg)
{
    struct aclrt_lane_start st = *(struct aclrt_lane_start *)arg;
    free(arg);
    struct aclrt_task_scope outer = aclrt_task_scope_enter(st.run->s);
    int rc = aclrt_lane_run(st.run, st.lane);
    aclrt_task_scope_leave(outer);
    if (rc != ACL_SUCCESS)
        aclrt_lanes_fail(st.run, rc);
    pthread_mutex_lock(&st.run->lock);
    st.run->running[st.lane] = 0;
    pthread_mutex_unlock(&st.run->lock);
    return NULL;
}

/*
 * Start a lane on a thread of its own, unless it runs already. Without a
 * thread (none can be made) it runs here, before the activating lane goes
 * on.
 */
static void aclrt_lanes_activate(struct aclrt_model_lanes *run, uint32_t lane)
{
    pthread_mutex_lock(&run->lock);
    if (run->b->lane_mode[lane] != ACLRT_LANE_ACTIVATED || run->running[lane]) {
        pthread_mutex_unlock(&run->lock); /* cleaned, or under way: nothing to start */
        return;
    }
    struct aclrt_lane_start *st = (struct aclrt_lane_start *)malloc(sizeof *st);
    bool room = st != NULL && aclrt_capture_grow((void **)&run->threads, &run->threads_cap, run->nthreads,
                                                 sizeof *run->threads);
    run->running[lane] = 1;
    if (room) {
        *st = (struct aclrt_lane_start){run, lane};
        if (aclrt_config_thread_create(&aclrt_rt.config, &run->threads[run->nthreads], NULL, aclrt_lane_thread,
                                       st) == 0) {
            run->nthreads++;
            pthread_mutex_unlock(&run->lock);
            return;
        }
    }
    pthread_mutex_unlock(&run->lock);
    free(st);
    int rc = aclrt_lane_run(run, lane);
    if (rc != ACL_SUCCESS)
        aclrt_lanes_fail(run, rc);
    pthread_mutex_lock(&run->lock);
    run->running[lane] = 0;
    pthread_mutex_unlock(&run->lock);
}

/* The lanes of the replay t (made now if need be), or NULL: out of memory. */
static struct aclrt_model_lanes *aclrt_lanes_of(struct aclrt_stream *s, struct aclrt_task *t)
{
    if (t->u.model.lanes != NULL)
        return t->u.model.lanes;
    const struct aclrt_model_body *b = t->u.model.body;
    struct aclrt_model_lanes *run = (struct aclrt_model_lanes *)aligned_alloc(ACLRT_CACHELINE, sizeof *run);
    uint8_t *flags = (uint8_t *)calloc(2 * (size_t)b->nlanes, 1);
    if (run == NULL || flags == NULL) {
        free(run);
        free(flags);
        return NULL;
    }
    memset(run, 0, sizeof *run);
    run->replay.kind = &aclrt_kind_nop;
    run->replay.u.model.body = t->u.model.body; /* not counted: the lanes end before the replay lets it go */
    run->replay.u.model.epoch = t->u.model.epoch;
    pthread_mutex_init(&run->lock, NULL);
    run->s = s;
    run->b = b;
    run->running = flags;
    run->stopped = flags + b->nlanes;
    atomic_init(&run->error, ACL_SUCCESS);
    t->u.model.lanes = run;
    return run;
}

/* Wait for every lane the replay t started, then let go of them; their first error, or ACL_SUCCESS. */
static int aclrt_lanes_finish(struct aclrt_task *t)
{
    struct aclrt_model_lanes *run = t->u.model.lanes;
    if (run == NULL)
        return ACL_SUCCESS;
    for (;;) { /* a lane may start another meanwhile */
        pthread_mutex_lock(&run->lock);
        if (run->nthreads == 0) {
            pthread_mutex_unlock(&run->lock);
            break;
        }
        pthread_t th = run->threads[--run->nthreads];
        pthread_mutex_unlock(&run->lock);
        pthread_join(th, NULL);
    }
    int rc = atomic_load_explicit(&run->error, memory_order_relaxed); /* the joins ordered the writes */
    pthread_mutex_destroy(&run->lock);
    free(run->threads);
    free(run->running);
    free(run);
    t->u.model.lanes = NULL;
    return rc;
}

/* Does the replay's own loop leave step i out (a lane it does not run, or one a switch stopped)? */
ACLRT_INLINE bool aclrt_lanes_skip(const struct aclrt_model_body *b, const struct aclrt_task *t, uint32_t i)
{
    uint32_t lane = b->lanes[i];
    return (b->lane_mode != NULL && b->lane_mode[lane] != ACLRT_LANE_HEAD) ||
           (t->u.model.lanes != NULL && t->u.model.lanes->stopped[lane]);
}

/*
 * An activation or switch step of the replay's own loop. ACL_SUCCESS, or
 * an error code (a value that cannot be read, no memory for the lanes).
 */
static int aclrt_model_run_activation(struct aclrt_stream *s, struct aclrt_task *t, uint32_t i)
{
    const struct aclrt_model_body *b = t->u.model.body;
    const struct aclrt_task *step = &b->tasks[i];
    bool stop = false;
    if (step->kind == &aclrt_kind_stream_switch) {
        int rc = aclrt_switch_holds(step, &stop);
        if (rc != ACL_SUCCESS || !stop)
            return rc;
    }
    uint32_t lane = step->u.activate.lane;
    if (lane == ACLRT_LANE_NONE && !stop)
        return ACL_SUCCESS; /* its stream has no task in the model */
    struct aclrt_model_lanes *run = aclrt_lanes_of(s, t);
    if (run == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    if (lane != ACLRT_LANE_NONE)
        aclrt_lanes_activate(run, lane);
    if (stop)
        run->stopped[b->lanes[i]] = 1; /* the replay's thread alone reads and writes it */
    return ACL_SUCCESS;
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
            if (ACLRT_UNLIKELY(b->lane_mode != NULL || t->u.model.lanes != NULL) && aclrt_lanes_skip(b, t, i))
                continue;
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
            if (ACLRT_UNLIKELY(aclrt_is_activation(&b->tasks[i]))) {
                if ((rc = aclrt_model_run_activation(s, t, i)) != ACL_SUCCESS)
                    break;
                continue;
            }
            aclrt_model_task_copy(&here, &b->tasks[i]);
            sub = &here;
        }
        aclrt_tls.ctx_handle = NULL; /* as between the stream's own tasks (exec.h) */
        uint64_t began = ACLRT_UNLIKELY(t->u.model.prof_sub != NULL) ? aclrt_now_ns() : 0;
        rc = aclrt_model_step(s, sub, &b->tasks[i], blk);
        while (ACLRT_UNLIKELY(rc == ACLRT_TASK_BLOCKED)) {
            if (resume == NULL) {
                resume = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, sizeof *resume);
                if (resume == NULL) {
                    aclrt_model_wait_block(blk);
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
        if (ACLRT_UNLIKELY(t->u.model.prof_sub != NULL))
            aclrt_model_sub_note(t->u.model.prof_sub, i, &b->tasks[i], began, s);
    }
    if (ACLRT_UNLIKELY(t->u.model.lanes != NULL)) {
        int lanes_rc = aclrt_lanes_finish(t); /* the lanes it started read the body: before it goes */
        if (rc == ACL_SUCCESS)
            rc = lanes_rc;
    }
    t->u.model.body = NULL;
    aclrt_model_body_put(b);
    if (t->u.model.prof_sub != NULL) {
        aclrt_prof_sub_put(t->u.model.prof_sub);
        t->u.model.prof_sub = NULL;
    }
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
    (void)aclrt_lanes_finish(t); /* lanes it started run to their end first: they read the body */
    if (t->u.model.body != NULL) {
        aclrt_model_body_put(t->u.model.body);
        t->u.model.body = NULL;
    }
    if (t->u.model.prof_sub != NULL) {
        aclrt_prof_sub_put(t->u.model.prof_sub);
        t->u.model.prof_sub = NULL;
    }
}

static const struct aclrt_task_kind aclrt_kind_model = {ACLRT_TASK_MODEL, "model", aclrt_model_run, aclrt_model_drop};

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
    struct aclrt_prof_sub *prof_sub = aclrt_model_sub_take(m);
    aclrt_model_unlock(m);
    struct aclrt_task t = {.kind = &aclrt_kind_model,
                           .u.model.body = b,
                           .u.model.epoch = epoch,
                           .u.model.prof_sub = prof_sub};
    rc = aclrt_stream_submit(s, &t, number);
    if (rc != ACL_SUCCESS) {
        aclrt_model_body_put(b);
        if (prof_sub != NULL)
            aclrt_prof_sub_put(prof_sub);
    }
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
    ACLRT_SAN(edge, NULL, s, number);
    aclError err = aclrt_stream_take_error(s);
    if (err != ACL_SUCCESS)
        return aclrt_fail(err, "a task of the model (or earlier work of the default stream) failed");
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MODEL_MODEL_REPLAY_H */
