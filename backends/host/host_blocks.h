/*
 * backends/host/host_blocks.h - a host kernel's blocks, shared among the
 * device's idle threads.
 *
 * The thread that reaches the task publishes the kernel in the device's
 * kernel slot and claims blocks one by one; idle threads (spinning
 * executors, executors woken for it, progress calls) claim blocks too. The
 * task completes when every claimed block has returned. After a failing
 * block the rest are claimed and skipped, so the count always reaches the
 * number of blocks.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_BLOCKS_H
#define ACLRT_BACKENDS_HOST_HOST_BLOCKS_H

#include "../../impl/core/base.h"
#include "../../impl/core/thread.h"
#include "host_pool.h"

/* A host kernel being run; lives on the stack of the thread that owns it. */
struct aclrt_host_kernel_job {
    aclrtxHostKernel fn;
    void *args;
    uint32_t blocks;
    _Atomic uint32_t next_block; /* next block to claim */
    _Atomic uint32_t done;       /* claimed blocks returned (run or skipped) */
    _Atomic int error;           /* first failing block's code; later blocks are skipped */
    struct aclrt_stream *stream; /* the task's: blocks run in its context on any thread (thread.h) */
};

/* Claim and run blocks of a job until none is left. */
static void aclrt_host_kernel_work(struct aclrt_host_kernel_job *job)
{
    struct aclrt_task_scope outer = aclrt_task_scope_enter(job->stream);
    for (;;) {
        uint32_t b = atomic_fetch_add_explicit(&job->next_block, 1, memory_order_relaxed);
        if (b >= job->blocks)
            break;
        if (ACLRT_LIKELY(atomic_load_explicit(&job->error, memory_order_relaxed) == 0)) {
            aclError rc = job->fn(b, job->blocks, job->args);
            if (ACLRT_UNLIKELY(rc != ACL_SUCCESS)) {
                int none = 0;
                atomic_compare_exchange_strong_explicit(&job->error, &none, rc, memory_order_relaxed,
                                                        memory_order_relaxed);
            }
        }
        /* Release: the block's writes are visible to the owner that sees `done` reach `blocks`. */
        atomic_fetch_add_explicit(&job->done, 1, memory_order_release);
    }
    aclrt_task_scope_leave(outer);
}

/*
 * An idle thread helps with the published kernel, if any. It announces
 * itself in kernel_helpers *before* reading the slot (seq_cst), and the
 * owner waits for kernel_helpers to drain after withdrawing the job, so no
 * helper touches the job after its owner's frame is gone.
 */
ACLRT_INTERNAL bool aclrt_host_kernel_help(struct aclrt_host_device *hd)
{
    if (atomic_load_explicit(&hd->kernel, memory_order_relaxed) == NULL)
        return false;
    atomic_fetch_add_explicit(&hd->kernel_helpers, 1, memory_order_seq_cst);
    struct aclrt_host_kernel_job *job = atomic_load_explicit(&hd->kernel, memory_order_seq_cst);
    if (job != NULL)
        aclrt_host_kernel_work(job);
    atomic_fetch_sub_explicit(&hd->kernel_helpers, 1, memory_order_release);
    return job != NULL;
}

/* The backend's run_kernel hook. */
ACLRT_INTERNAL aclError aclrt_host_run_kernel(struct aclrt_device *dev, aclrtxHostKernel fn, uint32_t blocks, void *args)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    struct aclrt_host_kernel_job job = {.fn = fn, .args = args, .blocks = blocks, .stream = aclrt_running_stream()};
    atomic_init(&job.next_block, 0);
    atomic_init(&job.done, 0);
    atomic_init(&job.error, 0);
    struct aclrt_host_kernel_job *none = NULL;
    /* Seq_cst (publishes the job's fields too): pairs with the helpers' load. */
    bool shared = atomic_compare_exchange_strong_explicit(&hd->kernel, &none, &job, memory_order_seq_cst,
                                                          memory_order_relaxed);
    if (shared) {
        uint32_t sleepers = atomic_load_explicit(&hd->sleepers, memory_order_relaxed);
        for (uint32_t i = 0; i < sleepers && i + 1 < blocks; i++)
            aclrt_host_wake_one(hd);
    }
    aclrt_host_kernel_work(&job);
    if (shared) {
        atomic_store_explicit(&hd->kernel, NULL, memory_order_seq_cst);
        while (atomic_load_explicit(&hd->kernel_helpers, memory_order_acquire) != 0)
            aclrt_cpu_relax();
    }
    /* Acquire: pairs with each block's release; every block has returned. */
    uint32_t claimed = atomic_load_explicit(&job.next_block, memory_order_relaxed);
    uint32_t issued = claimed < blocks ? claimed : blocks;
    while (atomic_load_explicit(&job.done, memory_order_acquire) < issued)
        aclrt_cpu_relax();
    return atomic_load_explicit(&job.error, memory_order_relaxed);
}

#endif /* ACLRT_BACKENDS_HOST_HOST_BLOCKS_H */
