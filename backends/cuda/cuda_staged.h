/*
 * backends/cuda/cuda_staged.h - built-in tasks on GPU memory the CPU
 * cannot address, run on host copies.
 *
 * Reductions (aclrtReduceAsync), random numbers (aclrtRandomNumAsync), the
 * overflow status (aclrtGetOverflowStatus) and copies whose addresses are
 * read from memory when they run (aclrtMemcpyBatch forms, descriptors).
 *
 * Behind the barrier (every earlier task of the stream complete on the
 * GPU), on the thread that runs the stream (never the driver's callback
 * thread): the device memory the task reads is copied to the host
 * (cuMemcpy), the core's kind runs on those copies, and what it wrote goes
 * back. Indirect copies read their addresses so, then copy device to device
 * (cuMemcpy). Slower than a kernel would be; the same results as the host
 * backend's.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_STAGED_H
#define ACLRT_BACKENDS_CUDA_CUDA_STAGED_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"
#include "../../impl/task/block.h"
#include "../../impl/task/task.h"
#include "../../impl/stream/stream.h"
#include "../../impl/memory/memory.h"
#include "../../impl/memory/memcpy_batch.h"
#include "../../impl/kernel/overflow.h"
#include "../../impl/kernel/random.h"
#include "cuda_device.h"
#include "cuda_driver.h"

/* A range the task uses: host memory as it is, device memory through a host copy. */
struct aclrt_cuda_stage {
    void *dev;  /* device memory, or NULL when the range is host memory */
    void *host; /* what the core's kind reads and writes */
    size_t n;
};

static aclrt_CUresult aclrt_cuda_stage_in(struct aclrt_cuda_stage *st, void *p, size_t n)
{
    st->n = n;
    st->dev = NULL;
    st->host = p;
    if (p == NULL || n == 0 || aclrt_mem_device_of(p, n) == NULL)
        return ACLRT_CUDA_SUCCESS;
    st->host = malloc(n);
    if (st->host == NULL)
        return ACLRT_CUDA_ERROR_OUT_OF_MEMORY;
    st->dev = p;
    return aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)st->host, (aclrt_CUdeviceptr)(uintptr_t)p, n);
}

static aclrt_CUresult aclrt_cuda_stage_out(const struct aclrt_cuda_stage *st)
{
    return st->dev == NULL ? ACLRT_CUDA_SUCCESS
                           : aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)st->dev,
                                                (aclrt_CUdeviceptr)(uintptr_t)st->host, st->n);
}

static void aclrt_cuda_stage_free(struct aclrt_cuda_stage *st)
{
    if (st->dev != NULL)
        free(st->host);
    st->dev = st->host = NULL;
}

/* A random parameter read from memory: the host copy's address in its place. */
static aclrt_CUresult aclrt_cuda_stage_param(struct aclrt_cuda_stage *st, aclrtRandomParaInfo *p)
{
    st->dev = st->host = NULL;
    if (!p->isAddr)
        return ACLRT_CUDA_SUCCESS;
    void *addr;
    memcpy(&addr, p->valueOrAddr, sizeof addr);
    aclrt_CUresult r = aclrt_cuda_stage_in(st, addr, sizeof(uint64_t));
    memcpy(p->valueOrAddr, &st->host, sizeof st->host);
    return r;
}

/* Read `n` bytes at p (device or host memory). */
static aclrt_CUresult aclrt_cuda_stage_read(void *out, const void *p, size_t n)
{
    if (aclrt_mem_device_of(p, n) == NULL) {
        memcpy(out, p, n);
        return ACLRT_CUDA_SUCCESS;
    }
    return aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)out, (aclrt_CUdeviceptr)(uintptr_t)p, n);
}

/* An indirect copy: its addresses (and a descriptor's size) read from memory, then device to device. */
static int aclrt_cuda_staged_indirect(struct aclrt_task *t)
{
    uintptr_t dst, src;
    size_t count;
    aclrt_CUresult r;
    if (t->u32 == 1) {
        struct aclrt_memcpy_desc d;
        if ((r = aclrt_cuda_stage_read(&d, t->u.indirect.dst, sizeof d)) != ACLRT_CUDA_SUCCESS)
            return aclrt_cuda_code(r);
        if (d.magic != ACLRT_MEMCPY_DESC_MAGIC)
            return ACL_ERROR_RT_DEVICE_MEM_ERROR;
        dst = (uintptr_t)d.dst, src = (uintptr_t)d.src, count = (size_t)d.count;
    } else {
        void *pd, *ps;
        if ((r = aclrt_cuda_stage_read(&pd, t->u.indirect.dst, sizeof pd)) != ACLRT_CUDA_SUCCESS ||
            (r = aclrt_cuda_stage_read(&ps, t->u.indirect.src, sizeof ps)) != ACLRT_CUDA_SUCCESS)
            return aclrt_cuda_code(r);
        if (pd == NULL || ps == NULL)
            return ACL_ERROR_RT_DEVICE_MEM_ERROR;
        dst = (uintptr_t)pd + t->u.indirect.dst_offset, src = (uintptr_t)ps + t->u.indirect.src_offset;
        count = t->u.indirect.count;
    }
    /* The ranges named when it runs must be device memory, as a copy engine would fault. */
    if (aclrt_mem_device_of((const void *)dst, count) == NULL || aclrt_mem_device_of((const void *)src, count) == NULL)
        return ACL_ERROR_RT_DEVICE_MEM_ERROR;
    r = aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)dst, (aclrt_CUdeviceptr)src, count);
    return r == ACLRT_CUDA_SUCCESS ? ACL_SUCCESS : aclrt_cuda_code(r);
}

/*
 * Run built-in task t (behind the barrier, its context current) on host
 * copies of the device memory it uses. The task's own status.
 */
ACLRT_INTERNAL int aclrt_cuda_staged_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_task c = *t; /* the core's kind runs on this, with host addresses */
    struct aclrt_cuda_stage st[6] = {{0}};
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    int written = 1; /* st[0, written) go back to the device once the task ran */
    switch (t->kind->id) {
    case ACLRT_TASK_MEMCPY_INDIRECT: return aclrt_cuda_staged_indirect(t);
    case ACLRT_TASK_REDUCE:
        if ((r = aclrt_cuda_stage_in(&st[0], t->u.reduce.dst, t->u.reduce.count)) == ACLRT_CUDA_SUCCESS &&
            (r = aclrt_cuda_stage_in(&st[1], (void *)(uintptr_t)t->u.reduce.src, t->u.reduce.count)) ==
                ACLRT_CUDA_SUCCESS) {
            c.u.reduce.dst = st[0].host;
            c.u.reduce.src = st[1].host;
        }
        break;
    case ACLRT_TASK_OVERFLOW_STATUS:
        if ((r = aclrt_cuda_stage_in(&st[0], t->u.fill.dst, ACLRT_OVERFLOW_STATUS_BYTES)) == ACLRT_CUDA_SUCCESS)
            c.u.fill.dst = st[0].host;
        break;
    case ACLRT_TASK_RANDOM: {
        struct aclrt_random_job *j = t->u.random.job; /* c's from here: its run or drop frees it */
        t->u.random.job = NULL;
        if ((r = aclrt_cuda_stage_in(&st[0], j->result, j->result_room)) == ACLRT_CUDA_SUCCESS &&
            (r = aclrt_cuda_stage_in(&st[1], j->counter, 4 * sizeof(uint32_t))) == ACLRT_CUDA_SUCCESS &&
            (r = aclrt_cuda_stage_param(&st[2], &j->p[0])) == ACLRT_CUDA_SUCCESS &&
            (r = aclrt_cuda_stage_param(&st[3], &j->p[1])) == ACLRT_CUDA_SUCCESS &&
            (r = aclrt_cuda_stage_param(&st[4], &j->seed)) == ACLRT_CUDA_SUCCESS &&
            (r = aclrt_cuda_stage_param(&st[5], &j->num)) == ACLRT_CUDA_SUCCESS) {
            j->result = st[0].host;
            j->counter = st[1].host;
        }
        written = 2;
        break;
    }
    default: return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
    int rc = ACL_SUCCESS;
    if (r == ACLRT_CUDA_SUCCESS)
        rc = t->kind->run(s, &c, blk);
    else if (c.kind->drop != NULL)
        c.kind->drop(&c); /* not run: what it owns goes */
    for (int i = 0; i < written && r == ACLRT_CUDA_SUCCESS && rc == ACL_SUCCESS; i++)
        r = aclrt_cuda_stage_out(&st[i]);
    for (int i = 0; i < 6; i++)
        aclrt_cuda_stage_free(&st[i]);
    return r != ACLRT_CUDA_SUCCESS ? aclrt_cuda_code(r) : rc;
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_STAGED_H */
