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
                           .u.model.aborts = &m->aborts,
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
