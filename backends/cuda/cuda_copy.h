/*
 * backends/cuda/cuda_copy.h - copies of pageable host memory, made off the executors.
 *
 * cuMemcpyAsync with pageable host memory on a side (memory the driver did
 * not pin: malloc'd, on a stack) is synchronous with respect to the host:
 * the driver stages it through pinned memory of its own and may wait for
 * the stream's earlier work first, and it may read a pageable source at
 * the call, before the stream reached the copy. Made by an executor, such
 * a copy would hold every stream the executor serves until the stream's
 * earlier work and the copy are done. So a copy with a side that is not
 * the runtime's memory (device memory, aclrtMallocHost's, mapped or
 * managed memory: aclrt_mem_is_ours) is issued in two steps:
 *
 *   - on the executor: behind the barrier (the stream parks until its
 *     earlier tasks are complete, holding no thread), the copy goes to the
 *     copy thread's queue, and the task is issued; the stream's later tasks
 *     wait for it as for an external task (the slot's host_until), so they
 *     see the copy done, whether they run on the GPU or on the host;
 *   - on the copy thread: cuMemcpy (a row at a time for a 2-D copy), in
 *     the stream's context; a failure fails the task (the stream's error,
 *     the exception callbacks; a sticky one loses the device); then the
 *     task's number goes into the stream's completion word, as a host
 *     function of ours stores it, and the stream is folded when someone
 *     waits for it.
 *
 * One copy thread for the process, started with the first such copy and
 * gone after ACLRT_CUDA_COPY_IDLE_NS with nothing to do; copies run in the
 * order they were queued. The copy thread takes no lock a driver call is
 * made under, and runs no user code but the exception callbacks of a copy
 * that failed (one that waits there for another pageable copy waits for
 * ever: not yet handed to an ordinary thread). A device's stop waits until no copy is
 * pending (aclrt_cuda_copies_drain): a completed copy's stream may be
 * released at once, and the copy thread still folds it.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_COPY_H
#define ACLRT_BACKENDS_CUDA_CUDA_COPY_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/seq.h"
#include "../../impl/task/task.h"
#include "../../impl/stream/stream.h"
#include "../../impl/stream/stream_complete.h"
#include "../../impl/memory/memory.h"
#include "../../impl/exec/exec.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_stream.h"

#define ACLRT_CUDA_COPY_IDLE_NS (100 * ACLRT_NS_PER_MS) /* the copy thread leaves after this with nothing to do */

/* A copy for the copy thread: `height` rows of `width` bytes (a plain copy: one row). */
struct aclrt_cuda_copy_job {
    struct aclrt_cuda_copy_job *next;
    struct aclrt_cuda_slot *slot;
    uint64_t number; /* the task's */
    uint32_t tid;    /* its submitting thread (a failure report) */
    char *dst;
    const char *src;
    size_t width, dpitch, spitch;
    uint32_t height;
};

/* The copy thread's queue. */
struct aclrt_cuda_copy_jobs {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct aclrt_cuda_copy_job *head, *tail; /* lock */
    bool running;                            /* a copy thread serves the queue (lock) */
    _Atomic uint64_t pending;                /* jobs queued or running (aclrt_cuda_copies_drain) */
};

static struct aclrt_cuda_copy_jobs aclrt_cuda_copies = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                                        .cond = PTHREAD_COND_INITIALIZER};

/* Is a side of the copy host memory the driver may not have pinned (not the runtime's)? */
ACLRT_INLINE bool aclrt_cuda_copy_pageable(const void *dst, size_t dst_len, const void *src, size_t src_len)
{
    return (dst_len != 0 && !aclrt_mem_is_ours(dst, dst_len)) || (src_len != 0 && !aclrt_mem_is_ours(src, src_len));
}

/* The same for a 2-D copy: height rows of width bytes, at their pitches. */
ACLRT_INLINE bool aclrt_cuda_copy2d_pageable(const struct aclrt_task *t)
{
    if (t->u.copy2d.height == 0)
        return false;
    size_t rows = t->u.copy2d.height - 1;
    return aclrt_cuda_copy_pageable(t->u.copy2d.dst, rows * t->u.copy2d.dpitch + t->u.copy2d.width, t->u.copy2d.src,
                                    rows * t->u.copy2d.spitch + t->u.copy2d.width);
}

/* Make one copy, then complete its task. */
static void aclrt_cuda_copy_run(struct aclrt_cuda_copy_job *j)
{
    struct aclrt_cuda_slot *sl = j->slot;
    aclrt_CUresult lost = atomic_load_explicit(&sl->cd->lost, memory_order_relaxed);
    aclrt_CUresult r = lost != ACLRT_CUDA_SUCCESS ? lost : aclrt_cuda_enter(sl->cd->ctx);
    for (uint32_t row = 0; row < j->height && r == ACLRT_CUDA_SUCCESS; row++)
        r = aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)(j->dst + row * j->dpitch),
                               (aclrt_CUdeviceptr)(uintptr_t)(j->src + row * j->spitch), j->width);
    if (r != ACLRT_CUDA_SUCCESS) {
        aclrt_stream_fail(sl->stream, j->tid, j->number, aclrt_cuda_code(r));
        if (aclrt_cuda_sticky(r))
            aclrt_cuda_lose(sl, sl->cd, r); /* counts the stream's issued work done, this copy's too */
    }
    /*
     * Release (a CAS: a lost device may have raised the word past it): pairs
     * with aclrt_stream_reached's acquire. Then the load of `want`, as
     * aclrt_cuda_callback_complete does: a waiter that asked for this task
     * before the store is folded here, one that asks after it sees the word.
     */
    aclrt_cuda_word_raise(sl, j->number);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&sl->want, memory_order_relaxed) > aclrt_seq_read(&sl->stream->completed))
        aclrt_stream_fold(sl->stream);
    free(j);
    /* Release: pairs with the drain's acquire (the slot is not ours to touch after this). */
    atomic_fetch_sub_explicit(&aclrt_cuda_copies.pending, 1, memory_order_release);
}

static void *aclrt_cuda_copy_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "aclrt-copy");
    pthread_mutex_lock(&aclrt_cuda_copies.lock);
    for (;;) {
        uint64_t idle_since = aclrt_now_ns();
        while (aclrt_cuda_copies.head == NULL) {
            if (aclrt_now_ns() - idle_since >= ACLRT_CUDA_COPY_IDLE_NS) {
                aclrt_cuda_copies.running = false;
                pthread_mutex_unlock(&aclrt_cuda_copies.lock);
                return NULL;
            }
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 20 * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&aclrt_cuda_copies.cond, &aclrt_cuda_copies.lock, &ts);
        }
        struct aclrt_cuda_copy_job *j = aclrt_cuda_copies.head;
        aclrt_cuda_copies.head = j->next;
        if (aclrt_cuda_copies.head == NULL)
            aclrt_cuda_copies.tail = NULL;
        pthread_mutex_unlock(&aclrt_cuda_copies.lock);
        aclrt_cuda_copy_run(j);
        pthread_mutex_lock(&aclrt_cuda_copies.lock);
    }
}

/*
 * A forked child has no copy thread, and the parent's jobs are its streams':
 * the queue starts empty there (its lock fresh: a parent's thread may have
 * held it at the fork).
 */
static void aclrt_cuda_copy_forked(void)
{
    pthread_mutex_init(&aclrt_cuda_copies.lock, NULL);
    pthread_cond_init(&aclrt_cuda_copies.cond, NULL);
    aclrt_cuda_copies.head = aclrt_cuda_copies.tail = NULL;
    aclrt_cuda_copies.running = false;
}

static void aclrt_cuda_copy_atfork(void)
{
    pthread_atfork(NULL, NULL, aclrt_cuda_copy_forked);
}

static pthread_once_t aclrt_cuda_copy_once = PTHREAD_ONCE_INIT;

/*
 * Queue the job for the copy thread, starting one if none serves the queue;
 * if none can start, the copy is made here (holding the caller's thread).
 */
ACLRT_INTERNAL void aclrt_cuda_copy_queue(struct aclrt_cuda_copy_job *j)
{
    j->next = NULL;
    atomic_fetch_add_explicit(&aclrt_cuda_copies.pending, 1, memory_order_relaxed);
    pthread_once(&aclrt_cuda_copy_once, aclrt_cuda_copy_atfork);
    pthread_mutex_lock(&aclrt_cuda_copies.lock);
    if (!aclrt_cuda_copies.running) {
        pthread_attr_t attr;
        pthread_t t;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        aclrt_cuda_copies.running = pthread_create(&t, &attr, aclrt_cuda_copy_main, NULL) == 0;
        pthread_attr_destroy(&attr);
        if (!aclrt_cuda_copies.running) {
            pthread_mutex_unlock(&aclrt_cuda_copies.lock);
            aclrt_cuda_copy_run(j);
            return;
        }
    }
    if (aclrt_cuda_copies.tail != NULL)
        aclrt_cuda_copies.tail->next = j;
    else
        aclrt_cuda_copies.head = j;
    aclrt_cuda_copies.tail = j;
    pthread_cond_signal(&aclrt_cuda_copies.cond);
    pthread_mutex_unlock(&aclrt_cuda_copies.lock);
}

/*
 * Wait until every copy queued has been made and completed (a device's
 * stop, before the host machinery and the slots go: the copy thread folds
 * streams and reads their slots). Bounded: a copy waits for nothing but
 * itself.
 */
ACLRT_INTERNAL void aclrt_cuda_copies_drain(void)
{
    /* Acquire: pairs with the release at the end of aclrt_cuda_copy_run. */
    for (long pause = 10000; atomic_load_explicit(&aclrt_cuda_copies.pending, memory_order_acquire) != 0;
         pause = pause < 1000000 ? 2 * pause : pause) {
        struct timespec ts = {0, pause};
        nanosleep(&ts, NULL);
    }
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_COPY_H */
