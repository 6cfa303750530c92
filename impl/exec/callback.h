/*
 * impl/exec/callback.h - callbacks and host functions: aclrtLaunchCallback,
 * aclrtLaunchHostFunc, and the threads they are handed to (callback_thread.h):
 * aclrtSubscribeReport + aclrtProcessReport, aclrtSubscribeHostFunc +
 * aclrtProcessHostFunc.
 *
 *   - When a stream reaches a callback task (or a host function on a stream
 *     with a host-function thread) it hands an item {fn, arg} to the thread
 *     through a liburcu wait-free queue (wfcqueue: the enqueue is
 *     wait-free) and counts it in the thread's `posted` sequence counter,
 *     which wakes the thread if it sleeps in aclrtProcess* (ck_ec: a futex
 *     call only when someone sleeps; no polling loop).
 *   - A blocking item (ACL_CALLBACK_BLOCK, and every host function) holds
 *     its stream: the stream parks on the item's `done` counter (block.h),
 *     so no thread of the runtime waits for the user thread. The thread runs
 *     fn, advances `done` (which wakes the stream), and drops its
 *     reference. An item has one reference per holder (the thread, the
 *     waiting stream for blocking ones, and a park while it looks at the
 *     item, exec.h); the last one frees it.
 *   - A thread still inside aclrtProcessReport during aclFinalize touches
 *     valid memory: thread objects live for the process.
 */
#ifndef ACLRT_IMPL_EXEC_CALLBACK_H
#define ACLRT_IMPL_EXEC_CALLBACK_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/registry.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/callback_thread.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "../stream/wait_task.h"
#include "../context/stream_api.h"

#define ACLRT_REPORT_BATCH 64 /* items one aclrtProcess* call runs at most */

struct aclrt_report_item {
    struct cds_wfcq_node node;
    void (*fn)(void *);
    void *arg;
    _Atomic uint32_t refs;
    struct aclrt_seq done;          /* 1 once fn has returned */
    struct aclrt_park_list waiters; /* the stream parked on `done` */
    struct aclrt_stream *stream;    /* the task's stream, and its number (the stream-ordering sanitizer's) */
    uint64_t task;
};

/*
 * Set while aclFinalize runs (aclrt_report_close): nothing more is handed
 * to report threads, so no stream waits for a thread that may never process
 * again.
 */
static atomic_bool aclrt_report_closing;

/* ------------------------------------------------------------------------
 * Items
 * ------------------------------------------------------------------------ */

static struct aclrt_report_item *aclrt_report_item_new(void (*fn)(void *), void *arg, uint32_t refs)
{
    struct aclrt_report_item *item = (struct aclrt_report_item *)malloc(sizeof *item);
    if (item == NULL)
        return NULL;
    cds_wfcq_node_init(&item->node);
    item->fn = fn;
    item->arg = arg;
    atomic_init(&item->refs, refs);
    aclrt_seq_init(&item->done, 0);
    aclrt_park_list_init(&item->waiters);
    item->stream = NULL;
    item->task = 0;
    return item;
}

/* Drop one reference; the last holder frees the item (and any stale park note left on it). */
ACLRT_INTERNAL void aclrt_report_item_put(struct aclrt_report_item *item)
{
    /* Acq_rel: the last holder sees everything the others did to the item. */
    if (atomic_fetch_sub_explicit(&item->refs, 1, memory_order_acq_rel) != 1)
        return;
    aclrt_park_list_wake(&item->waiters, UINT64_MAX);
    free(item);
}

/* Hand an item to its thread: enqueue (wait-free), then count it, waking the thread if it sleeps. */
static void aclrt_report_post(struct aclrt_report_thread *t, struct aclrt_report_item *item)
{
    ACLRT_TSAN_RELEASE(item); /* pairs with the acquire after the dequeue (liburcu is not instrumented) */
    cds_wfcq_enqueue(&t->head, &t->tail, &item->node);
    aclrt_seq_advance(&t->posted, 1);
}

/* The next item, or NULL. The locked dequeue: the thread itself and aclFinalize may both take. */
static struct aclrt_report_item *aclrt_report_take(struct aclrt_report_thread *t)
{
    struct cds_wfcq_node *node = cds_wfcq_dequeue_blocking(&t->head, &t->tail);
    if (node == NULL)
        return NULL;
    atomic_fetch_add_explicit(&t->taken, 1, memory_order_relaxed);
    struct aclrt_report_item *item = caa_container_of(node, struct aclrt_report_item, node);
    ACLRT_TSAN_ACQUIRE(item);
    return item;
}

/* Has an item been handed to t and not taken yet? */
ACLRT_INLINE bool aclrt_report_queued(struct aclrt_report_thread *t)
{
    return aclrt_seq_read(&t->posted) > atomic_load_explicit(&t->taken, memory_order_relaxed);
}

/* Run an item's function in the calling thread, then release whoever waits for it. */
static void aclrt_report_run(struct aclrt_report_item *item)
{
    struct aclrt_stream *outer_stream = aclrt_tls.report_stream;
    uint64_t outer_task = aclrt_tls.report_task;
    aclrt_tls.report_stream = item->stream;
    aclrt_tls.report_task = item->task;
    item->fn(item->arg);
    aclrt_tls.report_stream = outer_stream;
    aclrt_tls.report_task = outer_task;
    aclrt_counter_advance(&item->done, &item->waiters, 1);
    aclrt_report_item_put(item);
}

/* Drop an item without running it (aclFinalize); a stream waiting for it goes on. */
static void aclrt_report_drop(struct aclrt_report_item *item)
{
    aclrt_counter_advance(&item->done, &item->waiters, 1);
    aclrt_report_item_put(item);
}

/* ------------------------------------------------------------------------
 * The executor's side: callback and host-function tasks (exec.h)
 * ------------------------------------------------------------------------ */

/*
 * Run a task whose function goes to a report thread. First run: hand it off
 * (blocking ones keep a reference in the task record and park the stream on
 * the item); later runs: the stream was woken, the item is done. Returns
 * ACL_SUCCESS, ACLRT_TASK_BLOCKED (blk filled), or an error code. While
 * aclFinalize runs nothing is handed off: the function is dropped, not run.
 */
/* A blocking task's item is done (the task's own reference keeps the item alive while it looks). */
static bool aclrt_report_task_ready(const struct aclrt_task *task)
{
    const struct aclrt_report_item *item =
        task->kind->id == ACLRT_TASK_CALLBACK ? task->u.callback.item : task->u.host_func.item;
    return aclrt_seq_reached(&item->done, 1);
}

static int aclrt_report_task_run(struct aclrt_stream *s, const struct aclrt_task *task,
                                 struct aclrt_report_thread *t, void (*fn)(void *), void *arg, bool blocking,
                                 struct aclrt_report_item **slot, struct aclrt_block *blk)
{
    struct aclrt_report_item *item = *slot;
    if (item == NULL) {
        /* Relaxed: a hint that saves the hand-off; the look after posting decides. */
        if (ACLRT_UNLIKELY(atomic_load_explicit(&aclrt_report_closing, memory_order_relaxed)))
            return ACL_SUCCESS;
        item = aclrt_report_item_new(fn, arg, blocking ? 2u : 1u);
        if (item == NULL)
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        item->stream = s;
        item->task = aclrt_seq_read(&s->completed) + 1; /* the task running now */
        aclrt_report_post(t, item);
        if (!blocking)
            return ACL_SUCCESS;
        /*
         * Seq_cst, after the enqueue (an atomic exchange): pairs with the
         * store in aclrt_report_close. Either the close's drain comes after
         * our enqueue and drops the item (releasing us), or we see the flag
         * here and do not wait: the item stays queued for the final drain.
         */
        if (ACLRT_UNLIKELY(atomic_load_explicit(&aclrt_report_closing, memory_order_seq_cst))) {
            aclrt_report_item_put(item);
            return ACL_SUCCESS;
        }
        *slot = item;
    }
    /*
     * A callback that returns within spin_ns (the thread was polling) is
     * waited for by spinning while this executor has nothing else to do, as
     * event waits are: parking would cost the stream a wake-up on return.
     */
    if (!aclrt_wait_holds(s, aclrt_report_task_ready, task, ACLRT_NO_DEADLINE)) {
        aclrt_block_on_count(blk, &item->done, &item->waiters, 1, ACLRT_NO_DEADLINE);
        /*
         * The park looks at `done` once more after the stream is parked, when
         * the task's reference may be gone (a woken stream runs on and drops
         * it): the block holds one of its own. Relaxed: we hold one already.
         */
        atomic_fetch_add_explicit(&item->refs, 1, memory_order_relaxed);
        blk->held = item;
        return ACLRT_TASK_BLOCKED;
    }
    *slot = NULL;
    aclrt_report_item_put(item);
    return ACL_SUCCESS;
}

/* The report thread a stream's tasks go to (acquire: pairs with the release in subscribe). */
ACLRT_INLINE struct aclrt_report_thread *aclrt_stream_report_thread(struct aclrt_stream *s, uint32_t kind)
{
    return atomic_load_explicit(&s->report_threads[kind], memory_order_acquire);
}

/* ACLRT_TASK_CALLBACK. A stream whose thread unsubscribed meanwhile fails the task. */
static int aclrt_callback_task_run(struct aclrt_stream *s, struct aclrt_task *task, struct aclrt_block *blk)
{
    struct aclrt_report_thread *t = aclrt_stream_report_thread(s, ACLRT_REPORT_CALLBACK);
    if (task->u.callback.item == NULL && t == NULL)
        return ACL_ERROR_RT_STREAM_NO_CB_REG;
    return aclrt_report_task_run(s, task, t, task->u.callback.fn, task->u.callback.user_data,
                                 task->u32 == ACL_CALLBACK_BLOCK, &task->u.callback.item, blk);
}

/* ACLRT_TASK_HOST_FUNC: on the executor, unless a host-function thread serves the stream. */
static int aclrt_host_func_task_run(struct aclrt_stream *s, struct aclrt_task *task, struct aclrt_block *blk)
{
    struct aclrt_report_thread *t = aclrt_stream_report_thread(s, ACLRT_REPORT_HOST_FUNC);
    if (ACLRT_LIKELY(t == NULL && task->u.host_func.item == NULL)) {
        task->u.host_func.fn(task->u.host_func.args);
        return ACL_SUCCESS;
    }
    return aclrt_report_task_run(s, task, t, task->u.host_func.fn, task->u.host_func.args, true, &task->u.host_func.item,
                                 blk);
}

/* A callback or host-function task dropped without running: let go of its item. */
static void aclrt_report_slot_drop(struct aclrt_report_item **slot)
{
    if (*slot != NULL) {
        aclrt_report_item_put(*slot);
        *slot = NULL;
    }
}

static void aclrt_callback_task_drop(struct aclrt_task *task)
{
    aclrt_report_slot_drop(&task->u.callback.item);
}

static void aclrt_host_func_task_drop(struct aclrt_task *task)
{
    aclrt_report_slot_drop(&task->u.host_func.item);
}

static const struct aclrt_task_kind aclrt_kind_callback = {ACLRT_TASK_CALLBACK, "callback", aclrt_callback_task_run,
                                                           aclrt_callback_task_drop};
static const struct aclrt_task_kind aclrt_kind_host_func = {ACLRT_TASK_HOST_FUNC, "host function",
                                                            aclrt_host_func_task_run, aclrt_host_func_task_drop};

/* ------------------------------------------------------------------------
 * Subscribe, process, unsubscribe
 * ------------------------------------------------------------------------ */

static const char *const aclrt_report_what[ACLRT_REPORT_KINDS] = {"report", "host-function"};

/*
 * The stream a (un)subscription names: any live stream. NULL is the default
 * stream for a report thread; the host-function calls refuse it.
 */
static aclError aclrt_report_resolve_stream(uint32_t kind, aclrtStream stream, struct aclrt_stream **out)
{
    if (stream == NULL && kind == ACLRT_REPORT_HOST_FUNC)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "exeStream is NULL");
    return aclrt_stream_resolve(stream, false, out);
}

static aclError aclrt_report_subscribe(uint32_t kind, uint64_t thread_id, aclrtStream stream)
{
    struct aclrt_stream *s;
    aclError rc = aclrt_report_resolve_stream(kind, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_registry_lock(&aclrt_report_registry);
    struct aclrt_report_thread *t = aclrt_report_get_locked(kind, thread_id);
    uint32_t streams = t != NULL ? atomic_load_explicit(&t->streams, memory_order_relaxed) : 0;
    if (t == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory subscribing a thread");
    else if (atomic_load_explicit(&s->report_threads[kind], memory_order_relaxed) != NULL)
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                        "stream %d already has a %s thread (a stream is served by one thread)",
                        (int)aclrt_slot_index(&s->hdr), aclrt_report_what[kind]);
    else if (streams > 0 && t->device != (int32_t)s->device->id)
        rc = aclrt_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                        "thread %llu serves streams of device %d; a thread serves one device (this stream is on "
                        "device %u)",
                        (unsigned long long)thread_id, (int)t->device, s->device->id);
    else if (streams == 0 && aclrt_report_subscribed[kind] >= ACLRT_REPORT_MAX_THREADS)
        rc = aclrt_fail(ACL_ERROR_RT_OVER_LIMIT, "%d threads are subscribed already (the limit)",
                        ACLRT_REPORT_MAX_THREADS);
    if (rc == ACL_SUCCESS) {
        if (streams == 0) {
            t->device = (int32_t)s->device->id;
            aclrt_report_subscribed[kind]++;
        }
        atomic_store_explicit(&t->streams, streams + 1, memory_order_relaxed);
        /* Release: the thread object is complete before an executor can post to it. */
        atomic_store_explicit(&s->report_threads[kind], t, memory_order_release);
    }
    aclrt_registry_unlock(&aclrt_report_registry);
    return rc;
}

static aclError aclrt_report_unsubscribe(uint32_t kind, uint64_t thread_id, aclrtStream stream)
{
    struct aclrt_stream *s;
    aclError rc = aclrt_report_resolve_stream(kind, stream, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_registry_lock(&aclrt_report_registry);
    struct aclrt_report_thread *t = aclrt_report_find(kind, thread_id);
    if (t == NULL || atomic_load_explicit(&t->streams, memory_order_relaxed) == 0)
        rc = aclrt_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "thread %llu is not subscribed as a %s thread",
                        (unsigned long long)thread_id, aclrt_report_what[kind]);
    else if (atomic_load_explicit(&s->report_threads[kind], memory_order_relaxed) != t)
        rc = aclrt_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "stream %d is not subscribed to thread %llu",
                        (int)aclrt_slot_index(&s->hdr), (unsigned long long)thread_id);
    else
        aclrt_report_unbind_locked(s, kind, t);
    aclrt_registry_unlock(&aclrt_report_registry);
    return rc;
}

/*
 * aclrtProcessReport / aclrtProcessHostFunc: wait up to timeout_ms (-1:
 * forever) for items handed to the calling thread, then run what is queued
 * (at most ACLRT_REPORT_BATCH). Spins for spin_ns first, then sleeps.
 */
static aclError aclrt_report_process(uint32_t kind, int32_t timeout_ms)
{
    if (timeout_ms == 0 || timeout_ms < -1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout_ms);
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned(); /* a forked child: no runtime thread is left to hand anything over */
    struct aclrt_report_thread *t = aclrt_report_find(kind, (uint64_t)pthread_self());
    /* A thread that unsubscribed its last stream still runs what was handed to it before. */
    if (t == NULL || (atomic_load_explicit(&t->streams, memory_order_relaxed) == 0 && !aclrt_report_queued(t)))
        return aclrt_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                          "the calling thread is not subscribed as a %s thread (aclrtSubscribe%s with its "
                          "pthread_self() id first)",
                          aclrt_report_what[kind], kind == ACLRT_REPORT_CALLBACK ? "Report" : "HostFunc");
    uint64_t deadline = aclrt_deadline_after_ms(timeout_ms);
    for (;;) {
        uint64_t next = atomic_load_explicit(&t->taken, memory_order_relaxed) + 1;
        if (aclrt_seq_wait_handoff(&t->posted, next, deadline, aclrt_rt.config.spin_ns, NULL, NULL) != 0)
            return aclrt_fail(ACL_ERROR_RT_REPORT_TIMEOUT, "no %s arrived within %d ms",
                              kind == ACLRT_REPORT_CALLBACK ? "callback" : "host function", (int)timeout_ms);
        struct aclrt_report_item *item = aclrt_report_take(t);
        if (item == NULL)
            continue; /* counted but still being linked in, or taken by aclFinalize's drain */
        aclrt_report_run(item);
        for (int i = 1; i < ACLRT_REPORT_BATCH && (item = aclrt_report_take(t)) != NULL; i++)
            aclrt_report_run(item);
        return ACL_SUCCESS;
    }
}

static void aclrt_report_drop_queued(struct aclrt_registry_node *node, void *data)
{
    (void)data;
    struct aclrt_report_thread *t = caa_container_of(node, struct aclrt_report_thread, reg);
    struct aclrt_report_item *item;
    while ((item = aclrt_report_take(t)) != NULL)
        aclrt_report_drop(item);
}

/*
 * A forked child's queue: an executor of the parent may have been half-way
 * through an enqueue at the fork (the tail swapped, the link not yet
 * stored), or the parent's report thread inside a dequeue (the queue's
 * mutex held): a drain would wait for ever. The queue starts afresh; what
 * was queued is abandoned (its callbacks' streams are abandoned too).
 */
static void aclrt_report_forget_queued(struct aclrt_registry_node *node, void *data)
{
    (void)data;
    struct aclrt_report_thread *t = caa_container_of(node, struct aclrt_report_thread, reg);
    cds_wfcq_init(&t->head, &t->tail);
    atomic_store_explicit(&t->taken, aclrt_seq_read(&t->posted), memory_order_relaxed);
}

static void aclrt_report_drop_all_queued(void)
{
    aclrt_registry_lock(&aclrt_report_registry);
    aclrt_registry_foreach_locked(&aclrt_report_registry,
                                  aclrt_runtime_orphaned() ? aclrt_report_forget_queued : aclrt_report_drop_queued, NULL);
    aclrt_registry_unlock(&aclrt_report_registry);
}

/*
 * aclFinalize, before it waits for the streams: hand nothing more to report
 * threads and drop what is queued, so the streams waiting for those
 * callbacks go on (a thread may never process again: it may be the one
 * finalizing). Seq_cst store, then the drain: pairs with the executor's
 * enqueue-then-load in aclrt_report_task_run.
 */
ACLRT_INTERNAL void aclrt_report_close(void)
{
    atomic_store_explicit(&aclrt_report_closing, true, memory_order_seq_cst);
    aclrt_report_drop_all_queued();
}

/* aclFinalize, every stream gone: drop what is still queued; the next runtime hands off again. */
ACLRT_INTERNAL void aclrt_report_finalize(void)
{
    aclrt_report_drop_all_queued();
    atomic_store_explicit(&aclrt_report_closing, false, memory_order_relaxed); /* under the lifecycle lock */
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_report_subscribe(ACLRT_REPORT_CALLBACK, threadId, stream);
}

ACLRT_API aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_report_unsubscribe(ACLRT_REPORT_CALLBACK, threadId, stream);
}

ACLRT_API aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                       aclrtStream stream)
{
    ACLRT_ENTER();
    if (fn == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "blockType %d is neither ACL_CALLBACK_NO_BLOCK nor ACL_CALLBACK_BLOCK",
                          (int)blockType);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_stream_report_thread(s, ACLRT_REPORT_CALLBACK) == NULL)
        return aclrt_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                          "stream %d has no report thread (aclrtSubscribeReport first)", (int)aclrt_slot_index(&s->hdr));
    struct aclrt_task t = {.kind = &aclrt_kind_callback,
                           .u32 = (uint32_t)blockType,
                           .u.callback.fn = fn,
                           .u.callback.user_data = userData};
    return aclrt_stream_submit(s, &t, NULL);
}

/* A host function: runs on the stream, or on the thread subscribed with aclrtSubscribeHostFunc. */
ACLRT_API aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    ACLRT_ENTER();
    if (ACLRT_UNLIKELY(fn == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_host_func, .u.host_func.fn = fn, .u.host_func.args = args};
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtProcessReport(int32_t timeout)
{
    ACLRT_ENTER();
    return aclrt_report_process(ACLRT_REPORT_CALLBACK, timeout);
}

ACLRT_API aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    ACLRT_ENTER();
    return aclrt_report_subscribe(ACLRT_REPORT_HOST_FUNC, hostFuncThreadId, exeStream);
}

ACLRT_API aclError aclrtProcessHostFunc(int32_t timeout)
{
    ACLRT_ENTER();
    return aclrt_report_process(ACLRT_REPORT_HOST_FUNC, timeout);
}

ACLRT_API aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    ACLRT_ENTER();
    return aclrt_report_unsubscribe(ACLRT_REPORT_HOST_FUNC, hostFuncThreadId, exeStream);
}

#endif /* ACLRT_IMPL_EXEC_CALLBACK_H */
