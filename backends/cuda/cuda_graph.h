/*
 * backends/cuda/cuda_graph.h - model replays (aclmdlRIExecuteAsync) on the GPU.
 *
 * A model's body is immutable and belongs to one context, so to one GPU.
 * Two ways to replay it:
 *
 *   - Over a CUDA graph, when every step is GPU work: no-ops (and labels),
 *     copies, sets, and kernels whose arguments are the body's own copy
 *     (launched with host arguments, without a timeout). The first replay
 *     on the device captures the steps, issued as cuda_kinds.h and
 *     cuda_kernel.h issue them but with no completion word writes or host
 *     functions, on a private CUstream (cuStreamBeginCapture in relaxed
 *     mode .. cuStreamEndCapture), instantiates the graph
 *     (cuGraphInstantiateWithFlags; the graph itself goes at once) and
 *     publishes the executable graph with the body (its `ext`, a CAS: of
 *     two replays that build at once, the loser destroys its own). Every
 *     replay is then one cuGraphLaunch on the stream's CUstream and the
 *     task's usual completion. The driver copies a kernel's parameters at
 *     the capture, which are the body's copy: every replay passes the
 *     values of the capture. The driver runs the launches of one executable
 *     graph one at a time, in the order they were made, whichever stream
 *     they are on: replays of one model on several streams are correct, and
 *     serialized on the GPU.
 *   - Step by step, for every other body (host functions, callbacks, host
 *     kernels, event records and waits, label switches, kernels reading
 *     their arguments from device memory or with a timeout), when the
 *     driver has no graph API, or when building the graph failed (once per
 *     body: it is not tried again): the core's replay on the host, behind
 *     the barrier, as before; its copies, sets and kernels go to the
 *     stream's CUstream one at a time, each waited for (cuStreamSynchronize)
 *     before the next step (the backend's model_step). A driver error fails
 *     the step, and the replay with it.
 *
 * Lifetimes. The executable graph lives as long as the body; the body's
 * last reference destroys it (cuGraphExecDestroy, which the driver defers
 * until the launches in flight ran), or, on a driver callback thread where
 * no driver call may be made, leaves it to the next thread that builds a
 * graph or loads or unloads a module, or to the backend's close (always
 * before the modules left for later: the graph may hold their kernels).
 * The body holds each captured kernel's binary counted in flight
 * (impl/model/model.h); a replay holds its body until a host function
 * behind the graph's launch says it ran, so an unload or a destroy of the
 * model leaves the modules loaded until then, and the model's destroy
 * callbacks (run when its last body goes) find the GPU done with what the
 * graph uses. That host function only drops the replay's reference when
 * another one remains (the model's: the usual case); when the replay's is
 * the last (the model was destroyed while it ran), the put, which runs the
 * model's destroy callbacks (user code, which may call the driver), is
 * left to the next ordinary thread that comes by (aclrt_cuda_run_later,
 * cuda_stream.h: a waiter, a stream's destroy, a graph's build, a module
 * load or unload), never done on the driver's thread. A replay keeps its
 * host function (not the word write alone, as a kernel has): its reference
 * must be gone when the task is seen complete, and a replay is a whole
 * model's work, so the host round trip is paid once per replay.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_GRAPH_H
#define ACLRT_BACKENDS_CUDA_CUDA_GRAPH_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/task/task.h"
#include "../backend.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/stream.h"
#include "../../impl/model/model.h"
#include "cuda_copy.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_function.h"
#include "cuda_kinds.h"
#include "cuda_module.h"
#include "cuda_peer.h"
#include "cuda_stream.h"

/* A body's state on this backend (its `ext`). */
struct aclrt_cuda_graph {
    struct aclrt_model_ext ext;    /* first: the body's pointer is to it */
    aclrt_CUgraphExec exec;        /* NULL: no graph (step by step, or no GPU work at all) */
    aclrt_CUcontext ctx;           /* the context it was made in */
    uint32_t generation;           /* the backend's open it was made in */
    bool step_by_step;             /* replays run on the host, step by step */
    bool kernels;                  /* the graph launches kernels: issued behind a host function that may block */
    pthread_mutex_t launch_lock;   /* an executable graph is not for two threads at once (cuGraphLaunch) */
    struct aclrt_cuda_graph *next; /* the list of those destroyed later */
};

/* Executable graphs let go of on a driver callback thread, destroyed by the next ordinary thread (a stack). */
static struct aclrt_cuda_graph *_Atomic aclrt_cuda_graphs_later;

/* Is g's executable graph still the driver's (its context not released since)? */
ACLRT_INLINE bool aclrt_cuda_graph_live(const struct aclrt_cuda_graph *g)
{
    return g->exec != NULL && g->generation == aclrt_cuda.generation && aclrt_cuda.gpu_count != 0 &&
           !aclrt_runtime_orphaned();
}

static void aclrt_cuda_graph_free(struct aclrt_cuda_graph *g)
{
    if (aclrt_cuda_graph_live(g) && aclrt_cuda_enter(g->ctx) == ACLRT_CUDA_SUCCESS)
        aclrt_cu->cuGraphExecDestroy(g->exec);
    pthread_mutex_destroy(&g->launch_lock);
    free(g);
}

/* Destroy the executable graphs let go of on callback threads (not from one), bodies left for later first. */
ACLRT_INTERNAL void aclrt_cuda_graphs_destroy_later(void)
{
    aclrt_cuda_run_later();
    /* Acquire: pairs with the release CAS of the push. */
    struct aclrt_cuda_graph *list = atomic_exchange_explicit(&aclrt_cuda_graphs_later, NULL, memory_order_acquire);
    for (struct aclrt_cuda_graph *g = list, *next; g != NULL; g = next) {
        next = g->next;
        aclrt_cuda_graph_free(g);
    }
}

/* The body's `release`: the executable graph goes now, or later when this is a driver callback thread. */
static void aclrt_cuda_graph_release(struct aclrt_model_ext *x)
{
    struct aclrt_cuda_graph *g = (struct aclrt_cuda_graph *)(void *)x;
    if (aclrt_cuda_in_callback && aclrt_cuda_graph_live(g)) {
        /* No lock on a callback thread (a driver call may hold it); release: pairs with the taker's acquire. */
        g->next = atomic_load_explicit(&aclrt_cuda_graphs_later, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&aclrt_cuda_graphs_later, &g->next, g, memory_order_release,
                                                      memory_order_relaxed))
            ;
        return;
    }
    aclrt_cuda_graph_free(g);
}

/*
 * Can the step go into a graph? *gpu: it is GPU work; *kernel: a kernel.
 * A kernel only with its own copy of the arguments (read at the capture)
 * and no timeout (measured around the launch, step by step).
 */
static bool aclrt_cuda_graph_step_ok(const struct aclrt_task *t, bool *gpu, bool *kernel)
{
    switch (t->kind->id) {
    case ACLRT_TASK_NOP:
    case ACLRT_TASK_LABEL: return true;
    case ACLRT_TASK_MEMCPY:
        /* Pageable host memory: no capture (the driver refuses it), step by step. */
        if (aclrt_cuda_copy_pageable(t->u.copy.dst, t->u.copy.count, t->u.copy.src, t->u.copy.count))
            return false;
        *gpu = true;
        return true;
    case ACLRT_TASK_MEMCPY2D:
        if (aclrt_cuda_copy2d_pageable(t))
            return false;
        *gpu = true;
        return true;
    case ACLRT_TASK_MEMSET:
    case ACLRT_TASK_MEMSET32: *gpu = true; return true;
    case ACLRT_TASK_KERNEL:
        if (!t->u.kernel.owned || t->u.kernel.timeout_ms != 0)
            return false;
        *gpu = *kernel = true;
        return true;
    default: return false;
    }
}

/*
 * Issue step t on cu, a stream of device cd (its context current), as its
 * kind does but with nothing behind it (a kernel's arguments at `args`, its
 * binary bin: the step's, or the captured one's).
 */
static aclrt_CUresult aclrt_cuda_step_issue(const struct aclrt_task *t, void *args, struct aclrt_binary *bin,
                                            struct aclrt_cuda_device *cd, aclrt_CUstream cu)
{
    switch (t->kind->id) {
    case ACLRT_TASK_MEMCPY: return aclrt_cuda_copy_async(cd->ctx, t->u.copy.dst, t->u.copy.src, t->u.copy.count, cu);
    case ACLRT_TASK_MEMSET:
        return aclrt_cu->cuMemsetD8Async((aclrt_CUdeviceptr)(uintptr_t)t->u.fill.dst, (unsigned char)t->u32,
                                         t->u.fill.count, cu);
    case ACLRT_TASK_MEMCPY2D: {
        aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
        for (uint32_t row = 0; row < t->u.copy2d.height && r == ACLRT_CUDA_SUCCESS; row++)
            r = aclrt_cu->cuMemcpyAsync((aclrt_CUdeviceptr)(uintptr_t)t->u.copy2d.dst + row * t->u.copy2d.dpitch,
                                        (aclrt_CUdeviceptr)(uintptr_t)t->u.copy2d.src + row * t->u.copy2d.spitch,
                                        t->u.copy2d.width, cu);
        return r;
    }
    case ACLRT_TASK_MEMSET32:
        return aclrt_cu->cuMemsetD32Async((aclrt_CUdeviceptr)(uintptr_t)t->u.fill.dst, t->u32, t->u.fill.count / 4, cu);
    case ACLRT_TASK_KERNEL: {
        struct aclrt_cuda_function *cf = aclrt_cuda_function_of(t->u.kernel.fn); /* module_function's record */
        aclrt_CUfunction f; /* on cd's GPU */
        aclrt_CUresult r = aclrt_cuda_function_on(bin, cf, cd->gpu_index, &f);
        if (r != ACLRT_CUDA_SUCCESS)
            return r;
        size_t size = aclrt_cuda_function_bytes(cf, t->u.kernel.args_size); /* the kernel's exact size */
        void *extra[] = {(void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, args,
                         (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, &size,
                         (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_END_AS_INT};
        return aclrt_cu->cuLaunchKernel(f, t->u32, 1, 1, cf->block, 1, 1, 0, cu, NULL, size != 0 ? extra : NULL);
    }
    default: return ACLRT_CUDA_SUCCESS;
    }
}

/* Capture the body's steps on a private stream and instantiate the graph (the context is current). */
static aclrt_CUresult aclrt_cuda_graph_capture(const struct aclrt_model_body *b, struct aclrt_cuda_device *cd,
                                               aclrt_CUgraphExec *exec)
{
    aclrt_CUstream cs = NULL;
    aclrt_CUgraph graph = NULL;
    aclrt_CUresult r = aclrt_cu->cuStreamCreateWithPriority(&cs, ACLRT_CU_STREAM_NON_BLOCKING, 0);
    /* Relaxed: the capture forbids nothing to the other threads, which go on calling the driver. */
    if (r == ACLRT_CUDA_SUCCESS && (r = aclrt_cu->cuStreamBeginCapture(cs, ACLRT_CU_STREAM_CAPTURE_MODE_RELAXED)) ==
                                       ACLRT_CUDA_SUCCESS) {
        for (uint32_t i = 0; i < b->count && r == ACLRT_CUDA_SUCCESS; i++)
            r = aclrt_cuda_step_issue(&b->tasks[i], b->tasks[i].u.kernel.args,
                                      b->tasks[i].kind->id == ACLRT_TASK_KERNEL ? b->tasks[i].u.kernel.binary : NULL,
                                      cd, cs);
        aclrt_CUresult end = aclrt_cu->cuStreamEndCapture(cs, &graph); /* always: the stream leaves the capture */
        if (r == ACLRT_CUDA_SUCCESS)
            r = end;
    }
    if (r == ACLRT_CUDA_SUCCESS && graph == NULL)
        r = ACLRT_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuGraphInstantiate(exec, graph, 0);
    if (graph != NULL)
        aclrt_cu->cuGraphDestroy(graph); /* the executable graph is a copy */
    if (cs != NULL)
        aclrt_cu->cuStreamDestroy(cs);
    return r;
}

/* The body's state, made at its first replay on sl's device (the context current). NULL: out of memory. */
static struct aclrt_cuda_graph *aclrt_cuda_graph_make(struct aclrt_cuda_slot *sl, const struct aclrt_model_body *b)
{
    struct aclrt_cuda_graph *g = (struct aclrt_cuda_graph *)calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->ext.release = aclrt_cuda_graph_release;
    pthread_mutex_init(&g->launch_lock, NULL);
    g->ctx = sl->cd->ctx;
    g->generation = aclrt_cuda.generation;
    bool gpu = false, ok = aclrt_cu->cuStreamBeginCapture != NULL && aclrt_cu->cuStreamEndCapture != NULL &&
                           aclrt_cu->cuGraphInstantiate != NULL && aclrt_cu->cuGraphLaunch != NULL &&
                           aclrt_cu->cuGraphExecDestroy != NULL && aclrt_cu->cuGraphDestroy != NULL;
    ok = ok && b->lane_mode == NULL; /* lanes that run when activated, or not at all: the core's replay */
    for (uint32_t i = 0; i < b->count && ok; i++)
        ok = aclrt_cuda_graph_step_ok(&b->tasks[i], &gpu, &g->kernels);
    if (!ok) {
        g->step_by_step = true;
        return g;
    }
    if (!gpu)
        return g; /* nothing for the GPU: a replay only completes in order */
    aclrt_cuda_graphs_destroy_later(); /* may make another GPU's context current: this one again below */
    if (aclrt_cuda_enter(g->ctx) != ACLRT_CUDA_SUCCESS || aclrt_cuda_graph_capture(b, sl->cd, &g->exec) != ACLRT_CUDA_SUCCESS) {
        g->exec = NULL;
        g->step_by_step = true; /* the driver could not: this body replays step by step from now on */
    }
    return g;
}

/* What the host function behind a graph launch needs (and, left for later, the body's last put). */
struct aclrt_cuda_graph_done {
    struct aclrt_cuda_later later; /* first: the work item, when the body's last reference is the replay's */
    struct aclrt_cuda_slot *slot;
    struct aclrt_model_body *body; /* the replay's reference */
    uint64_t number;
};

/* An ordinary thread: the replay's reference was the body's last; it goes here (the destroy callbacks run here). */
static void aclrt_cuda_graph_put_later(struct aclrt_cuda_later *w)
{
    struct aclrt_cuda_graph_done *d = (struct aclrt_cuda_graph_done *)(void *)w;
    struct aclrt_model_body *b = d->body;
    free(d);
    aclrt_model_body_put(b);
}

/*
 * Behind the launch: the graph ran. The replay's reference to the body goes
 * here unless it is the last (a decrement: no user code, no driver call);
 * the last one's put (the model's destroy callbacks, the graph's destroy, a
 * module's unload) is left to the next ordinary thread. Then the task is
 * complete: a replay whose model still lives has let go of its body before
 * a waiter sees the task done, as on the host backend.
 */
static void aclrt_cuda_graph_done_cb(void *arg)
{
    struct aclrt_cuda_graph_done *d = (struct aclrt_cuda_graph_done *)arg;
    struct aclrt_cuda_slot *sl = d->slot;
    uint64_t n = d->number;
    aclrt_cuda_in_callback = true;
    uint32_t refs = atomic_load_explicit(&d->body->refs, memory_order_relaxed);
    /* Acq_rel: as aclrt_model_body_put's decrement (the last one to let go sees this replay's end). */
    while (refs > 1 && !atomic_compare_exchange_weak_explicit(&d->body->refs, &refs, refs - 1, memory_order_acq_rel,
                                                              memory_order_relaxed))
        ;
    if (refs > 1) {
        free(d);
    } else { /* only the replay holds it: nobody takes another reference now */
        d->later.run = aclrt_cuda_graph_put_later;
        aclrt_cuda_leave_for_later(&d->later);
    }
    aclrt_cuda_callback_complete(sl, n);
}

/*
 * ACLRT_TASK_MODEL: one graph launch when the body has a graph, else the
 * core's replay behind the barrier (its GPU steps through model_step). A
 * replay resumed half way, aborted before it started, or of a subscribed
 * model (its steps are timed one by one), goes the host's way too.
 */
static int aclrt_cuda_model_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_model_body *b = t->u.model.body;
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    /* Relaxed: as the core's replay reads it (an abort seen late drops one replay fewer). */
    if (t->u.model.next != 0 || t->u.model.resume != NULL || t->u.model.prof_sub != NULL ||
        atomic_load_explicit(t->u.model.body->aborts, memory_order_relaxed) != t->u.model.epoch)
        return aclrt_cuda_host_run(s, t, blk);
    /* Acquire: pairs with the CAS that published it (the graph's fields). */
    struct aclrt_model_ext *x = atomic_load_explicit(&b->ext, memory_order_acquire);
    if (x == NULL) {
        if (aclrt_cuda_begin(sl) != ACLRT_CUDA_SUCCESS)
            return aclrt_cuda_host_run(s, t, blk); /* the device is lost: the steps fail there */
        struct aclrt_cuda_graph *mine = aclrt_cuda_graph_make(sl, b);
        if (mine == NULL)
            return aclrt_cuda_host_run(s, t, blk); /* out of memory: step by step this time */
        /* Acq_rel: publishes the graph (release); a failure reads the winner's (acquire). */
        if (atomic_compare_exchange_strong_explicit(&b->ext, &x, &mine->ext, memory_order_acq_rel,
                                                    memory_order_acquire))
            x = &mine->ext;
        else
            aclrt_cuda_graph_free(mine); /* another replay built one first */
    }
    struct aclrt_cuda_graph *g = (struct aclrt_cuda_graph *)(void *)x;
    if (g->step_by_step)
        return aclrt_cuda_host_run(s, t, blk);
    /* As a kernel launch: behind the barrier while a host function before it may block (kept discardable). */
    bool barrier = g->kernels && !aclrt_stream_reached(s, atomic_load_explicit(&sl->may_block, memory_order_relaxed));
    int gate = barrier ? aclrt_cuda_barrier(s, blk) : aclrt_cuda_gate(s, sl, blk);
    if (gate != 0)
        return gate;
    /*
     * The replay's reference is let go of below, or by the host function;
     * below, after the stream's last driver call: a last reference's
     * release may make another context current (a module's unload).
     */
    t->u.model.body = NULL;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (g->exec == NULL) { /* nothing to launch (a body of no-ops) */
        int rc = aclrt_cuda_complete_after(s, sl, t, r);
        aclrt_model_body_put(b);
        return rc;
    }
    /*
     * The replay holds the body until the GPU ran the graph, copies alone
     * too: the model's destroy callbacks run when the last body goes, and
     * may free what the graph reads and writes.
     */
    uint64_t n = s->issued;
    atomic_store_explicit(&sl->tids[n % ACLRT_CUDA_TID_RING], t->tid, memory_order_relaxed);
    struct aclrt_cuda_graph_done *d = (struct aclrt_cuda_graph_done *)malloc(sizeof *d);
    if (d == NULL && r == ACLRT_CUDA_SUCCESS)
        r = ACLRT_CUDA_ERROR_OUT_OF_MEMORY;
    if (r == ACLRT_CUDA_SUCCESS) {
        /* Two streams may replay one model at once: the driver's graph objects want one caller at a time. */
        pthread_mutex_lock(&g->launch_lock);
        r = aclrt_cu->cuGraphLaunch(g->exec, sl->cu);
        pthread_mutex_unlock(&g->launch_lock);
    }
    if (r != ACLRT_CUDA_SUCCESS) {
        free(d);
        int rc = aclrt_cuda_issue_failed(s, sl, t, n, r);
        aclrt_model_body_put(b);
        return rc;
    }
    *d = (struct aclrt_cuda_graph_done){.later = {NULL, NULL}, .slot = sl, .body = b, .number = n};
    r = aclrt_cuda_host_fn(sl->cu, aclrt_cuda_graph_done_cb, d);
    if (ACLRT_UNLIKELY(r != ACLRT_CUDA_SUCCESS)) {
        /*
         * The kernels are on the GPU queue with nothing behind them to say
         * when they ran: the body (and the binaries it counts) is kept for
         * good, once per such failure, rather than unloaded under them.
         */
        free(d);
        return aclrt_cuda_issue_failed(s, sl, t, n, r);
    }
    aclrt_cuda_issued(sl, n);
    return ACLRT_TASK_ISSUED;
}

/* A driver error of a step run step by step: a failure that is not sticky is read again (the stream goes on). */
static aclError aclrt_cuda_step_failed(struct aclrt_cuda_slot *sl, aclrt_CUresult r)
{
    if (aclrt_cuda_sticky(r)) {
        aclrt_cuda_lose(sl, sl->cd, r);
    } else if (aclrt_cuda_failed(r)) {
        aclrt_CUresult again = aclrt_cu->cuStreamQuery(sl->cu);
        if (aclrt_cuda_sticky(again))
            aclrt_cuda_lose(sl, sl->cd, again);
    }
    return aclrt_cuda_code(r);
}

/*
 * The backend's model_step: a copy, a set or a kernel of a replay that runs
 * step by step goes to the stream's CUstream and is waited for; a reduce
 * on memory the CPU cannot address is refused as the stream's own is; any
 * other step is its core kind's. The replay runs behind the barrier, so
 * the stream's earlier work is done: a kernel's arguments in device memory
 * are read now.
 */
ACLRT_INTERNAL int aclrt_cuda_model_step(struct aclrt_stream *s, struct aclrt_task *t, const struct aclrt_task *captured,
                                 struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    switch (t->kind->id) {
    case ACLRT_TASK_MEMCPY:
    case ACLRT_TASK_MEMSET:
    case ACLRT_TASK_MEMCPY2D:
    case ACLRT_TASK_MEMSET32:
    case ACLRT_TASK_KERNEL: break;
    case ACLRT_TASK_NATIVE: { /* issued on the replaying stream's CUstream, waited for there (HCCL through NCCL) */
        aclrt_CUresult r = aclrt_cuda_begin(sl);
        if (r != ACLRT_CUDA_SUCCESS)
            return aclrt_cuda_step_failed(sl, r);
        struct aclrt_native_place place = {s, s->issued, t->tid};
        aclError rc = t->u.native.issue(t->u.native.arg, (void *)sl->cu, &place);
        if (rc != ACL_SUCCESS)
            return rc;
        r = aclrt_cu->cuStreamSynchronize(sl->cu);
        return r != ACLRT_CUDA_SUCCESS ? aclrt_cuda_step_failed(sl, r) : ACL_SUCCESS;
    }
    case ACLRT_TASK_REDUCE:
    case ACLRT_TASK_MEMCPY_INDIRECT:
        if (!sl->cd->host_access)
            return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        return t->kind->run(s, t, blk);
    default: return t->kind->run(s, t, blk);
    }
    bool kernel = t->kind->id == ACLRT_TASK_KERNEL;
    void *args = NULL, *own = NULL;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (kernel) {
        args = t->u.kernel.args;
        if (!captured->u.kernel.owned) { /* device memory (aclrtLaunchKernel): read now */
            own = malloc(t->u.kernel.args_size != 0 ? t->u.kernel.args_size : 1);
            if (own == NULL && r == ACLRT_CUDA_SUCCESS)
                r = ACLRT_CUDA_ERROR_OUT_OF_MEMORY;
            if (r == ACLRT_CUDA_SUCCESS)
                r = aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)own, (aclrt_CUdeviceptr)(uintptr_t)args,
                                       t->u.kernel.args_size);
            args = own;
        }
    }
    uint64_t start = kernel && t->u.kernel.timeout_ms != 0 ? aclrt_now_ns() : 0;
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_step_issue(t, args, kernel ? captured->u.kernel.binary : NULL, sl->cd, sl->cu);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuStreamSynchronize(sl->cu);
    free(own);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_step_failed(sl, r);
    if (start != 0 && aclrt_now_ns() - start > (uint64_t)t->u.kernel.timeout_ms * 1000000u)
        return ACL_ERROR_RT_AICORE_TIMEOUT;
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_cuda_kind_model =
    ACLRT_CUDA_KIND(ACLRT_TASK_MODEL, "model (a CUDA graph, or step by step)", aclrt_cuda_model_run);

#endif /* ACLRT_BACKENDS_CUDA_CUDA_GRAPH_H */
