/*
 * backends/cuda/cuda_kinds.h - what each task kind becomes on the GPU.
 *
 * The backend issues ahead (backends/backend.h): a task taken off the ring
 * is enqueued on the stream's CUstream and the holder goes on with the next
 * one; the CUstream keeps the order. Every kind is overridden, so that
 * nothing runs on the host out of order with the GPU queue:
 *
 *   on the GPU queue, then the task's number into the completion word:
 *     no-op               nothing (the word write alone)
 *     memcpy / memset     cuMemcpyAsync / cuMemsetD8Async (unified addressing;
 *                         between two GPUs' memory cuMemcpyPeerAsync, cuda_peer.h)
 *     2-D memcpy          cuMemcpyAsync, a row at a time; 32-bit memset: cuMemsetD32Async
 *     event stamp         cuEventRecord of the event's CUevent (cuda_time.h)
 *     stream wait         cuStreamWaitValue64 GEQ on the captured stream's
 *                         word, when the captured work is all on the GPU
 *                         and none of it can wait for the host (a host
 *                         function then counts the event's pending wait
 *                         done, and stores the word); other waits wait on
 *                         the host, where they can be discarded
 *     value write / wait  on a GPU whose memory the CPU cannot address:
 *                         cuStreamWriteValue64 (and a host function that
 *                         wakes the host's value waits) / cuStreamWaitValue64
 *     kernel              cuLaunchKernel (cuda_kernel.h; with a launch
 *                         timeout, between two host functions, the second
 *                         of which stores the word)
 *   A kernel's record (its binary, its arguments) waits in the slot's FIFO
 *   until an ordinary thread sees the word past it (cuda_stream.h): no host
 *   function behind it.
 *   A copy with a side in pageable host memory (not the runtime's memory)
 *   is made on the host instead: behind the barrier, by the copy thread
 *   (cuda_copy.h), whose cuMemcpy holds no executor; the tasks after it
 *   wait for it (`host_until`), as for an external task.
 *
 *   on the host, once every earlier task of the stream is complete on the
 *   GPU (the barrier: the stream parks on its own completed count, brought
 *   there by a fold callback right behind the last task): the core's own
 *   kind, run as the host backend runs it:
 *     host functions and callbacks (user code never runs on the driver's
 *     thread for host functions: the driver may run every stream's host
 *     functions on one thread, and one that blocks would stall them all),
 *     host kernels,
 *     stream waits with a timeout, waits on unrecorded events, event
 *     resets, notifies, counting notifies, IPC records and waits, HCOM
 *     tasks, external tasks,
 *     value operations, reduce and random tasks on memory the CPU can
 *     address, overflow status.
 *     An external task is complete only when its embedder says so: the
 *     tasks after it wait for it (`host_until`).
 *
 * A driver call that fails when the task is issued fails the task (its ids
 * go to the exception callbacks); the task still completes in order (its
 * word write follows) unless the context is lost, when everything issued
 * counts as done.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_KINDS_H
#define ACLRT_BACKENDS_CUDA_CUDA_KINDS_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/handle.h"
#include "../../impl/core/seq.h"
#include "../../impl/core/thread.h"
#include "../../impl/task/block.h"
#include "../../impl/task/task.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/callback_thread.h"
#include "../../impl/stream/stream.h"
#include "../../impl/stream/stream_complete.h"
#include "../../impl/stream/stream_wake.h"
#include "../../impl/sync/event_life.h"
#include "../../impl/sync/event_record.h"
#include "../../impl/exec/callback.h"
#include "../../impl/exec/exec.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_peer.h"
#include "cuda_stream.h"
#include "cuda_copy.h"
#include "cuda_staged.h"
#include "cuda_time.h"
#include "cuda_value.h"

#define ACLRT_CUDA_BLOCK_THREADS 256u /* a kernel launch's block, fewer where the kernel takes fewer (cuda_function.h) */

/*
 * Wait until every task taken before the current one is complete: 0 then,
 * else ACLRT_TASK_BLOCKED with the stream parked on its own completed count
 * (a fold callback brings it there: stream_await).
 */
ACLRT_INTERNAL int aclrt_cuda_barrier(struct aclrt_stream *s, struct aclrt_block *blk)
{
    uint64_t before = s->issued - 1;
    if (aclrt_seq_reached(&s->completed, before))
        return 0;
    aclrt_stream_fold(s);
    if (aclrt_seq_reached(&s->completed, before))
        return 0;
    aclrt_stream_await(s, before);
    aclrt_block_on_count(blk, &s->completed, &s->waiters, before, ACLRT_NO_DEADLINE);
    blk->in_flight = true; /* its own issued work: parks even while discarding or draining */
    return ACLRT_TASK_BLOCKED;
}

/* A kind that runs on the host: the core's own, behind the barrier. */
ACLRT_INTERNAL int aclrt_cuda_host_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    int rc = aclrt_cuda_barrier(s, blk);
    return rc != 0 ? rc : t->kind->run(s, t, blk);
}

/* Every override drops a task as the core's kind does. */
static void aclrt_cuda_drop(struct aclrt_task *t)
{
    if (t->kind->drop != NULL)
        t->kind->drop(t);
}

/* Before work goes to the GPU queue: an external task before it must be complete (0: go on). */
ACLRT_INLINE int aclrt_cuda_gate(struct aclrt_stream *s, struct aclrt_cuda_slot *sl, struct aclrt_block *blk)
{
    if (ACLRT_LIKELY(sl->host_until == 0))
        return 0;
    if (!aclrt_seq_reached(&s->completed, sl->host_until))
        return aclrt_cuda_barrier(s, blk);
    sl->host_until = 0;
    return 0;
}

/*
 * Task n could not be issued (r): it fails (ids to the exception callbacks,
 * with the kernel's function and arguments for a kernel; the stream's
 * error), and still completes in order behind the work before it; if the
 * context takes nothing more, the device is lost.
 */
ACLRT_INTERNAL int aclrt_cuda_issue_failed_kernel(struct aclrt_stream *s, struct aclrt_cuda_slot *sl, const struct aclrt_task *t,
                                          uint64_t n, aclrt_CUresult r, const struct aclrt_kernel_failure *kernel)
{
    if (kernel != NULL)
        aclrt_stream_fail_kernel(s, t->tid, n, aclrt_cuda_code(r), kernel);
    else
        aclrt_stream_fail(s, t->tid, n, aclrt_cuda_code(r));
    aclrt_CUresult w = aclrt_cuda_sticky(r) ? r : aclrt_cu->cuStreamWriteValue64(sl->cu, sl->word_dev, n, 0);
    if (w == ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_issued(sl, n);
    } else {
        atomic_store_explicit(&sl->gpu_issued, n, memory_order_seq_cst);
        aclrt_cuda_lose(sl, sl->cd, aclrt_cuda_sticky(w) ? w : ACLRT_CUDA_ERROR_UNKNOWN);
    }
    return ACLRT_TASK_ISSUED;
}

ACLRT_INTERNAL int aclrt_cuda_issue_failed(struct aclrt_stream *s, struct aclrt_cuda_slot *sl, const struct aclrt_task *t,
                                   uint64_t n, aclrt_CUresult r)
{
    return aclrt_cuda_issue_failed_kernel(s, sl, t, n, r, NULL);
}

/* The work of the current task was enqueued (result r): its completion goes behind it. */
ACLRT_INTERNAL int aclrt_cuda_complete_after(struct aclrt_stream *s, struct aclrt_cuda_slot *sl, const struct aclrt_task *t,
                                     aclrt_CUresult r)
{
    uint64_t n = s->issued;
    atomic_store_explicit(&sl->tids[n % ACLRT_CUDA_TID_RING], t->tid, memory_order_relaxed);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuStreamWriteValue64(sl->cu, sl->word_dev, n, ACLRT_CU_STREAM_WRITE_VALUE_DEFAULT);
    if (ACLRT_UNLIKELY(r != ACLRT_CUDA_SUCCESS))
        return aclrt_cuda_issue_failed(s, sl, t, n, r);
    aclrt_cuda_issued(sl, n);
    return ACLRT_TASK_ISSUED;
}

/* What a host function of ours does on the driver's thread, then it stores the task's number. */
enum aclrt_cuda_call_what { ACLRT_CUDA_CALL_WAIT_DONE, ACLRT_CUDA_CALL_VALUE_WRITTEN };

struct aclrt_cuda_call {
    enum aclrt_cuda_call_what what;
    struct aclrt_cuda_slot *slot;
    uint64_t number;
    struct aclrt_stream *stream;
    union {
        struct aclrt_event_ref ref;
        struct aclrt_device *dev;
    } u;
};

/*
 * The end of a host function of ours on the driver's thread that completes
 * a task (a stream wait's or a value write's bookkeeping, a timed kernel's
 * verdict, a graph replay's end): task n is complete (its word stored; the stream may end from
 * here on), and the thread leaves the driver's callback.
 */
ACLRT_INTERNAL void aclrt_cuda_callback_complete(struct aclrt_cuda_slot *sl, uint64_t n)
{
    /* Release: pairs with aclrt_stream_reached's acquire. */
    atomic_store_explicit(sl->word, n, memory_order_release);
    if (atomic_load_explicit(&sl->want, memory_order_relaxed) > aclrt_seq_read(&sl->stream->completed))
        aclrt_stream_fold(sl->stream); /* someone waits: this thread brings the count now */
    aclrt_cuda_in_callback = false;
    aclrt_cuda_host_fn_end();
}

static void aclrt_cuda_call_cb(void *arg)
{
    struct aclrt_cuda_call *c = (struct aclrt_cuda_call *)arg;
    aclrt_cuda_in_callback = true;
    switch (c->what) {
    case ACLRT_CUDA_CALL_WAIT_DONE: aclrt_event_wait_done(&c->u.ref); break;
    case ACLRT_CUDA_CALL_VALUE_WRITTEN:
        aclrt_counter_advance(&c->u.dev->value_writes, &c->u.dev->value_waiters, 1);
        break;
    }
    struct aclrt_cuda_slot *sl = c->slot;
    uint64_t n = c->number;
    free(c);
    aclrt_cuda_callback_complete(sl, n);
}

/* Enqueue c (filled but for slot and number) as the current task's host function: it completes the task. */
static int aclrt_cuda_call_after(struct aclrt_stream *s, struct aclrt_cuda_slot *sl, const struct aclrt_task *t,
                                 struct aclrt_cuda_call *c, aclrt_CUresult r)
{
    uint64_t n = s->issued;
    atomic_store_explicit(&sl->tids[n % ACLRT_CUDA_TID_RING], t->tid, memory_order_relaxed);
    c->slot = sl;
    c->number = n;
    c->stream = s;
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_host_fn(sl->cu, aclrt_cuda_call_cb, c);
    if (ACLRT_UNLIKELY(r != ACLRT_CUDA_SUCCESS)) {
        if (c->what == ACLRT_CUDA_CALL_WAIT_DONE)
            aclrt_event_wait_done(&c->u.ref);
        free(c);
        return aclrt_cuda_issue_failed(s, sl, t, n, r);
    }
    aclrt_cuda_issued(sl, n);
    return ACLRT_TASK_ISSUED;
}

/* The first driver call of an issue: the device lost, or its context not current, is the task's failure. */
ACLRT_INLINE aclrt_CUresult aclrt_cuda_begin(struct aclrt_cuda_slot *sl)
{
    aclrt_CUresult lost = atomic_load_explicit(&sl->cd->lost, memory_order_relaxed);
    return ACLRT_UNLIKELY(lost != ACLRT_CUDA_SUCCESS) ? lost : aclrt_cuda_enter(sl->cd->ctx);
}

static int aclrt_cuda_nop_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    return g != 0 ? g : aclrt_cuda_complete_after(s, sl, t, aclrt_cuda_begin(sl));
}

/*
 * A copy with pageable host memory on a side (cuda_copy.h): behind the
 * barrier, queued for the copy thread, which completes it; the stream's
 * later tasks wait for it. `what` says the rows.
 */
static int aclrt_cuda_copy_off(struct aclrt_stream *s, struct aclrt_cuda_slot *sl, const struct aclrt_task *t,
                               struct aclrt_block *blk, const struct aclrt_cuda_copy_job *what)
{
    int rc = aclrt_cuda_barrier(s, blk);
    if (rc != 0)
        return rc;
    uint64_t n = s->issued;
    atomic_store_explicit(&sl->tids[n % ACLRT_CUDA_TID_RING], t->tid, memory_order_relaxed);
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    struct aclrt_cuda_copy_job *j =
        r == ACLRT_CUDA_SUCCESS ? (struct aclrt_cuda_copy_job *)malloc(sizeof *j) : NULL;
    if (j == NULL)
        return aclrt_cuda_issue_failed(s, sl, t, n, r != ACLRT_CUDA_SUCCESS ? r : ACLRT_CUDA_ERROR_OUT_OF_MEMORY);
    *j = *what;
    j->slot = sl;
    j->number = n;
    j->tid = t->tid;
    sl->host_until = n; /* what follows waits for the copy thread */
    aclrt_cuda_issued(sl, n);
    aclrt_cuda_copy_queue(j);
    return ACLRT_TASK_ISSUED;
}

static int aclrt_cuda_memcpy_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    if (aclrt_cuda_copy_pageable(t->u.copy.dst, t->u.copy.count, t->u.copy.src, t->u.copy.count)) {
        struct aclrt_cuda_copy_job what = {.dst = (char *)t->u.copy.dst, .src = (const char *)t->u.copy.src,
                                           .width = t->u.copy.count, .height = 1};
        return aclrt_cuda_copy_off(s, sl, t, blk, &what);
    }
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS) /* between two GPUs' memory: cuMemcpyPeerAsync (cuda_peer.h) */
        r = aclrt_cuda_copy_async(sl->cd->ctx, t->u.copy.dst, t->u.copy.src, t->u.copy.count, sl->cu);
    return aclrt_cuda_complete_after(s, sl, t, r);
}

static int aclrt_cuda_memset_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemsetD8Async((aclrt_CUdeviceptr)(uintptr_t)t->u.fill.dst, (unsigned char)t->u32,
                                      t->u.fill.count, sl->cu);
    return aclrt_cuda_complete_after(s, sl, t, r);
}

static int aclrt_cuda_memcpy2d_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    if (aclrt_cuda_copy2d_pageable(t)) {
        struct aclrt_cuda_copy_job what = {.dst = (char *)t->u.copy2d.dst,
                                           .src = (const char *)t->u.copy2d.src,
                                           .width = t->u.copy2d.width,
                                           .dpitch = t->u.copy2d.dpitch,
                                           .spitch = t->u.copy2d.spitch,
                                           .height = t->u.copy2d.height};
        return aclrt_cuda_copy_off(s, sl, t, blk, &what);
    }
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    for (uint32_t row = 0; row < t->u.copy2d.height && r == ACLRT_CUDA_SUCCESS; row++) /* a row a copy */
        r = aclrt_cu->cuMemcpyAsync((aclrt_CUdeviceptr)(uintptr_t)t->u.copy2d.dst + row * t->u.copy2d.dpitch,
                                    (aclrt_CUdeviceptr)(uintptr_t)t->u.copy2d.src + row * t->u.copy2d.spitch,
                                    t->u.copy2d.width, sl->cu);
    return aclrt_cuda_complete_after(s, sl, t, r);
}

static int aclrt_cuda_memset32_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemsetD32Async((aclrt_CUdeviceptr)(uintptr_t)t->u.fill.dst, t->u32, t->u.fill.count / 4,
                                       sl->cu);
    return aclrt_cuda_complete_after(s, sl, t, r);
}

static int aclrt_cuda_stamp_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    uint64_t stamp = 0;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_stamp_record(&t->u.mark, sl->cd, sl->cu, &stamp);
    if (stamp != 0)
        aclrt_event_apply_stamp(&t->u.mark, stamp);
    return aclrt_cuda_complete_after(s, sl, t, r);
}

/*
 * Does the captured work (other, up to target) finish on the GPU whatever
 * the host does? All of it is on the GPU queue already, and none of it in
 * flight can wait for the host (a host function may block in user code).
 * Loads in the order the holder stores (may_block before gpu_issued).
 */
static bool aclrt_cuda_bounded(struct aclrt_stream *on, struct aclrt_cuda_slot *other, uint64_t target)
{
    /* Acquire: pairs with the seq_cst store in aclrt_cuda_issued (the may_block store before it). */
    if (atomic_load_explicit(&other->gpu_issued, memory_order_acquire) < target)
        return false;
    uint64_t may_block = atomic_load_explicit(&other->may_block, memory_order_relaxed);
    return aclrt_stream_reached(on, may_block);
}

/*
 * A stream wait without a timeout on work that finishes on the GPU: a GPU
 * wait on the captured stream's word (cuStreamWaitValue64 GEQ), and the
 * stream's next tasks are issued behind it. Any other wait (a timeout, or
 * captured work that may wait for the host) waits on the host, where a
 * force destroy, an abort or a teardown can discard it and what follows.
 */
static int aclrt_cuda_wait_stream_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_stream *on = t->u.wait.stream;
    struct aclrt_cuda_slot *other = aclrt_cuda_slot_at(aclrt_slot_index(&on->hdr));
    if (t->u32 != 0 || other == NULL ||
        (!aclrt_stream_reached(on, t->u.wait.target) && !aclrt_cuda_bounded(on, other, t->u.wait.target)))
        return aclrt_cuda_host_run(s, t, blk);
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    bool satisfied = aclrt_stream_reached(on, t->u.wait.target);
    if (r == ACLRT_CUDA_SUCCESS && !satisfied)
        r = aclrt_cu->cuStreamWaitValue64(sl->cu, other->word_dev, t->u.wait.target, ACLRT_CU_STREAM_WAIT_VALUE_GEQ);
    if (t->u.wait.from.event == NULL || satisfied || r != ACLRT_CUDA_SUCCESS) {
        aclrt_event_wait_done(&t->u.wait.from); /* over already (or failed): the event's count now */
        return aclrt_cuda_complete_after(s, sl, t, r);
    }
    struct aclrt_cuda_call *c = (struct aclrt_cuda_call *)malloc(sizeof *c);
    if (c == NULL) { /* no memory for the bookkeeping call: the event's count goes down now */
        aclrt_event_wait_done(&t->u.wait.from);
        return aclrt_cuda_complete_after(s, sl, t, r);
    }
    c->what = ACLRT_CUDA_CALL_WAIT_DONE;
    c->u.ref = t->u.wait.from;
    return aclrt_cuda_call_after(s, sl, t, c, r);
}

/* Value operations: on the host where the CPU addresses the GPU's memory, else on the GPU. */
static int aclrt_cuda_value_write_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    if (sl->cd->host_access)
        return aclrt_cuda_host_run(s, t, blk);
    if (ACLRT_UNLIKELY(t->u32 == ACLRT_CU_STREAM_WAIT_VALUE_NOR && !sl->cd->wait_nor))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "a NOR value wait: this GPU's stream memory operations do not wait with NOR (attribute 123)");
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    struct aclrt_cuda_call *c = (struct aclrt_cuda_call *)malloc(sizeof *c);
    if (c == NULL)
        return aclrt_cuda_issue_failed(s, sl, t, s->issued, ACLRT_CUDA_ERROR_OUT_OF_MEMORY);
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuStreamWriteValue64(sl->cu, (aclrt_CUdeviceptr)(uintptr_t)t->u.value.word, t->u.value.value,
                                           ACLRT_CU_STREAM_WRITE_VALUE_DEFAULT);
    c->what = ACLRT_CUDA_CALL_VALUE_WRITTEN; /* the host's value waits on this device look again */
    c->u.dev = t->u.value.device;
    return aclrt_cuda_call_after(s, sl, t, c, r);
}

static int aclrt_cuda_value_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    if (sl->cd->host_access)
        return aclrt_cuda_host_run(s, t, blk);
    if (ACLRT_UNLIKELY(t->u32 == ACLRT_CU_STREAM_WAIT_VALUE_NOR && !sl->cd->wait_nor))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "a NOR value wait: this GPU's stream memory operations do not wait with NOR (attribute 123)");
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    atomic_store_explicit(&sl->may_block, s->issued, memory_order_relaxed); /* a host thread may be the writer */
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_value_wait_issue(sl, t, s->issued);
    /*
     * An abort that began meanwhile may have looked at the gate before this
     * wait was issued (aclrt_cuda_stream_abort): let it go here then. Seq_cst
     * fence: pairs with the abort's, after its odd epoch and before it reads
     * gate_want (one of the two sees the other's store).
     */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&s->aborts, memory_order_relaxed) & 1u)
        aclrt_cuda_value_release(sl);
    return aclrt_cuda_complete_after(s, sl, t, r);
}

/* Built-in tasks that compute on the GPU's memory: on the host, directly or on copies (cuda_staged.h). */
static int aclrt_cuda_device_memory_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    if (sl->cd->host_access)
        return aclrt_cuda_host_run(s, t, blk);
    int rc = aclrt_cuda_barrier(s, blk);
    if (rc != 0)
        return rc;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r != ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_drop(t);
        return aclrt_cuda_code(r);
    }
    return aclrt_cuda_staged_run(s, t, blk);
}

/* An external task: started on the host behind the barrier; what follows waits for its completion. */
static int aclrt_cuda_external_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    int rc = aclrt_cuda_host_run(s, t, blk);
    if (rc == ACLRT_TASK_ISSUED)
        aclrt_cuda_slot_of(s)->host_until = s->issued;
    return rc;
}

/*
 * Work issued onto the CUstream itself (impl/exec/native.h: an HCCL
 * operation, which NCCL enqueues there): in order with the GPU queue, then
 * the task's number into the word. A failure to issue fails the task,
 * which still completes in order.
 */
static int aclrt_cuda_native_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    int g = aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    aclrt_CUresult r = aclrt_cuda_begin(sl);
    if (r != ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_drop(t);
        return aclrt_cuda_complete_after(s, sl, t, r);
    }
    struct aclrt_native_place place = {s, s->issued, t->tid};
    aclError rc = t->u.native.issue(t->u.native.arg, (void *)sl->cu, &place);
    if (rc != ACL_SUCCESS)
        aclrt_stream_fail(s, t->tid, s->issued, rc);
    return aclrt_cuda_complete_after(s, sl, t, ACLRT_CUDA_SUCCESS);
}

#define ACLRT_CUDA_KIND(id, name, run) {id, name, run, aclrt_cuda_drop}
static const struct aclrt_task_kind aclrt_cuda_kind_nop = ACLRT_CUDA_KIND(ACLRT_TASK_NOP, "no-op (GPU)", aclrt_cuda_nop_run);
static const struct aclrt_task_kind aclrt_cuda_kind_host_func =
    ACLRT_CUDA_KIND(ACLRT_TASK_HOST_FUNC, "host function (host, in GPU order)", aclrt_cuda_host_run);
static const struct aclrt_task_kind aclrt_cuda_kind_memcpy =
    ACLRT_CUDA_KIND(ACLRT_TASK_MEMCPY, "memcpy (cuMemcpyAsync)", aclrt_cuda_memcpy_run);
static const struct aclrt_task_kind aclrt_cuda_kind_memset =
    ACLRT_CUDA_KIND(ACLRT_TASK_MEMSET, "memset (cuMemsetD8Async)", aclrt_cuda_memset_run);
static const struct aclrt_task_kind aclrt_cuda_kind_memcpy2d =
    ACLRT_CUDA_KIND(ACLRT_TASK_MEMCPY2D, "2-D memcpy (cuMemcpyAsync a row)", aclrt_cuda_memcpy2d_run);
static const struct aclrt_task_kind aclrt_cuda_kind_memset32 =
    ACLRT_CUDA_KIND(ACLRT_TASK_MEMSET32, "32-bit memset (cuMemsetD32Async)", aclrt_cuda_memset32_run);
static const struct aclrt_task_kind aclrt_cuda_kind_wait_stream =
    ACLRT_CUDA_KIND(ACLRT_TASK_WAIT_STREAM, "stream wait (cuStreamWaitValue64)", aclrt_cuda_wait_stream_run);
static const struct aclrt_task_kind aclrt_cuda_kind_stamp =
    ACLRT_CUDA_KIND(ACLRT_TASK_EVENT_STAMP, "event timestamp (cuEventRecord)", aclrt_cuda_stamp_run);
static const struct aclrt_task_kind aclrt_cuda_kind_value_write =
    ACLRT_CUDA_KIND(ACLRT_TASK_VALUE_WRITE, "value write (GPU)", aclrt_cuda_value_write_run);
static const struct aclrt_task_kind aclrt_cuda_kind_value_wait =
    ACLRT_CUDA_KIND(ACLRT_TASK_VALUE_WAIT, "value wait (GPU)", aclrt_cuda_value_wait_run);
static const struct aclrt_task_kind aclrt_cuda_kind_device_memory =
    ACLRT_CUDA_KIND(ACLRT_TASK_REDUCE, "built-in task on GPU memory", aclrt_cuda_device_memory_run);
static const struct aclrt_task_kind aclrt_cuda_kind_external =
    ACLRT_CUDA_KIND(ACLRT_TASK_EXTERNAL, "external task (host, in GPU order)", aclrt_cuda_external_run);
static const struct aclrt_task_kind aclrt_cuda_kind_native =
    ACLRT_CUDA_KIND(ACLRT_TASK_NATIVE, "native work (on the CUstream)", aclrt_cuda_native_run);
static const struct aclrt_task_kind aclrt_cuda_kind_host =
    ACLRT_CUDA_KIND(ACLRT_TASK_NOP, "host task (in GPU order)", aclrt_cuda_host_run);

#endif /* ACLRT_BACKENDS_CUDA_CUDA_KINDS_H */
