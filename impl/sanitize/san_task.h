/*
 * impl/sanitize/san_task.h - the bytes a task reads and writes, as the
 * stream-ordering sanitizer takes them: copies and memsets exactly (a 2-D
 * copy row by row, or as the span of its rows when it has many), built-in
 * tasks by their operands, an HCCL operation by its buffers, a kernel from
 * its packed arguments (each word that points into a block: read and
 * written from there to the block's end), and what the program declared
 * (aclrtxDeclareAccess), which takes the place of all that for the next
 * task a thread launches on a stream.
 */
#ifndef ACLRT_IMPL_SANITIZE_SAN_TASK_H
#define ACLRT_IMPL_SANITIZE_SAN_TASK_H

#include "../core/base.h"
#include "../core/sanitize_hook.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../kernel/random.h"
#include "../kernel/overflow.h"
#include "../model/model.h"
#include "../hccl/hccl_op.h"
#include "../hccl/hccl_reduce.h"
#include "../hccl/hccl_submit.h"
#include "san_state.h"

struct aclrt_san_range_mode {
    uintptr_t lo, hi;
    unsigned mode; /* ACLRT_SAN_READ | ACLRT_SAN_WRITE, and ACLRT_SAN_DEVICE */
};

/*
 * The call said these bytes are device memory (a declaration, a copy's
 * kind): only such an access of a freed block is a use after free. On the
 * host backend device memory is host memory, and a block freed there may
 * come back as the program's own pageable memory, which it may copy.
 */
#define ACLRT_SAN_DEVICE 4u

/*
 * The accesses of one task (or of all the tasks of a replayed model): in
 * the caller's array of ACLRT_SAN_INLINE_RANGES at first (most tasks have
 * one or two), then on the heap.
 */
struct aclrt_san_ranges {
    uint32_t n, cap;
    struct aclrt_san_range_mode *r;
};

#define ACLRT_SAN_INLINE_RANGES 8

ACLRT_INTERNAL void aclrt_san_ranges_add(struct aclrt_san_ranges *rs, const void *p, size_t n, unsigned mode)
{
    if (p == NULL || n == 0 || mode == 0)
        return;
    if (rs->n == rs->cap) {
        struct aclrt_san_range_mode *r =
            (struct aclrt_san_range_mode *)aclrt_san_realloc(NULL, 2 * (size_t)rs->cap * sizeof *r);
        memcpy(r, rs->r, rs->n * sizeof *r);
        if (rs->cap != ACLRT_SAN_INLINE_RANGES)
            free(rs->r);
        rs->r = r;
        rs->cap *= 2;
    }
    uintptr_t lo = (uintptr_t)p;
    rs->r[rs->n++] = (struct aclrt_san_range_mode){lo, n > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + n, mode};
}

/* Declarations for the next task this thread launches on one stream (aclrtxDeclareAccess). */
#define ACLRT_SAN_DECLS 32
static _Thread_local struct aclrt_san_decls {
    const void *stream; /* the aclrtStream handle they are for; NULL: none */
    uint32_t n;
    struct aclrt_san_range_mode r[ACLRT_SAN_DECLS];
} aclrt_san_decls ACLRT_TLS_MODEL;

/* Rows of a 2-D copy recorded one by one up to this many; more: the span from first to last. */
#define ACLRT_SAN_ROWS 64u

static void aclrt_san_rows(struct aclrt_san_ranges *rs, const void *base, size_t pitch, size_t width, size_t height,
                           unsigned mode)
{
    if (height <= ACLRT_SAN_ROWS || pitch == width) {
        if (pitch == width)
            aclrt_san_ranges_add(rs, base, width * height, mode);
        else
            for (size_t r = 0; r < height; r++)
                aclrt_san_ranges_add(rs, (const char *)base + r * pitch, width, mode);
        return;
    }
    aclrt_san_ranges_add(rs, base, (height - 1) * pitch + width, mode);
}

/* A kernel's arguments: each aligned word that points into a live block. */
static void aclrt_san_kernel_args(struct aclrt_san_ranges *rs, const void *args, size_t size)
{
    if (args == NULL)
        return;
    for (size_t off = 0; off + sizeof(uintptr_t) <= size; off += sizeof(uintptr_t)) {
        uintptr_t v;
        memcpy(&v, (const char *)args + off, sizeof v);
        struct aclrt_san_block *b = v != 0 ? aclrt_san_block_at(v) : NULL;
        if (b != NULL && !b->freed)
            aclrt_san_ranges_add(rs, (const void *)v, b->hi - v, ACLRT_SAN_READ | ACLRT_SAN_WRITE);
    }
}

/*
 * An HCCL operation (an external task of hccl_submit.h): its buffers, this
 * rank's side. The V kinds (counts per rank) touch nothing here.
 */
static void aclrt_san_hccl(struct aclrt_san_ranges *rs, const struct aclrt_hccl_op *op)
{
    const struct aclrt_hccl_args *a = &op->a;
    size_t es = aclrt_hccl_type_size(a->type), n = op->comm->nranks;
    const unsigned R = ACLRT_SAN_READ | ACLRT_SAN_DEVICE, W = ACLRT_SAN_WRITE | ACLRT_SAN_DEVICE;
    size_t one = (size_t)a->count * es;
    switch (a->kind) {
    case ACLRT_HCCL_ALLREDUCE:
    case ACLRT_HCCL_REDUCE:
        aclrt_san_ranges_add(rs, a->send, one, R);
        aclrt_san_ranges_add(rs, a->recv, one, W);
        break;
    case ACLRT_HCCL_BROADCAST:
        aclrt_san_ranges_add(rs, a->send, one, R | W);
        break;
    case ACLRT_HCCL_ALLGATHER:
        aclrt_san_ranges_add(rs, a->send, one, R);
        aclrt_san_ranges_add(rs, a->recv, one * n, W);
        break;
    case ACLRT_HCCL_REDUCE_SCATTER:
    case ACLRT_HCCL_SCATTER:
        aclrt_san_ranges_add(rs, a->send, one * n, R);
        aclrt_san_ranges_add(rs, a->recv, one, W);
        break;
    case ACLRT_HCCL_ALLTOALL:
        aclrt_san_ranges_add(rs, a->send, one * n, R);
        aclrt_san_ranges_add(rs, a->recv, one * n, W);
        break;
    case ACLRT_HCCL_BATCH:
        for (uint32_t i = 0; i < a->nitems; i++) {
            const HcclSendRecvItem *it = &a->items[i];
            aclrt_san_ranges_add(rs, it->buf, (size_t)it->count * aclrt_hccl_type_size(it->dataType),
                                 it->sendRecvType == HCCL_SEND ? R : W);
        }
        break;
    default:
        break;
    }
}

/* The accesses of task t, added to rs (lock held: kernels look blocks up). */
ACLRT_INTERNAL void aclrt_san_task_ranges(const struct aclrt_task *t, struct aclrt_san_ranges *rs, unsigned depth)
{
    const unsigned R = ACLRT_SAN_READ, W = ACLRT_SAN_WRITE;
    switch (t->kind->id) {
    case ACLRT_TASK_MEMCPY: {
        aclrtMemcpyKind k = (aclrtMemcpyKind)t->u32;
        bool dst_dev = k == ACL_MEMCPY_HOST_TO_DEVICE || k == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                       k == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || k == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
        bool src_dev = k == ACL_MEMCPY_DEVICE_TO_HOST || k == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                       k == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || k == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
        aclrt_san_ranges_add(rs, t->u.copy.src, t->u.copy.count, R | (src_dev ? ACLRT_SAN_DEVICE : 0));
        aclrt_san_ranges_add(rs, t->u.copy.dst, t->u.copy.count, W | (dst_dev ? ACLRT_SAN_DEVICE : 0));
        break;
    }
    case ACLRT_TASK_MEMSET:
    case ACLRT_TASK_MEMSET32:
        aclrt_san_ranges_add(rs, t->u.fill.dst, t->u.fill.count, W);
        break;
    case ACLRT_TASK_OVERFLOW_STATUS:
        aclrt_san_ranges_add(rs, t->u.fill.dst, ACLRT_OVERFLOW_STATUS_BYTES, W);
        break;
    case ACLRT_TASK_MEMCPY2D:
        aclrt_san_rows(rs, t->u.copy2d.src, t->u.copy2d.spitch, t->u.copy2d.width, t->u.copy2d.height, R);
        aclrt_san_rows(rs, t->u.copy2d.dst, t->u.copy2d.dpitch, t->u.copy2d.width, t->u.copy2d.height, W);
        break;
    case ACLRT_TASK_REDUCE:
        aclrt_san_ranges_add(rs, t->u.reduce.src, t->u.reduce.count, R);
        aclrt_san_ranges_add(rs, t->u.reduce.dst, t->u.reduce.count, R | W);
        break;
    case ACLRT_TASK_RANDOM:
        if (t->u.random.job != NULL) {
            aclrt_san_ranges_add(rs, t->u.random.job->result, t->u.random.job->result_room, W);
            aclrt_san_ranges_add(rs, t->u.random.job->counter, 4 * sizeof(uint32_t), R | W);
        }
        break;
    case ACLRT_TASK_KERNEL:
        aclrt_san_kernel_args(rs, t->u.kernel.args, t->u.kernel.args_size);
        break;
    case ACLRT_TASK_EXTERNAL:
        if (t->u.external.start == aclrt_hccl_start)
            aclrt_san_hccl(rs, (const struct aclrt_hccl_op *)t->u.external.user_data);
        break;
    case ACLRT_TASK_MODEL: {
        /* A replay: what its captured tasks touch, as one task of the replaying stream. */
        const struct aclrt_model_body *body = t->u.model.body;
        if (body != NULL && depth < 4)
            for (uint32_t i = 0; i < body->count; i++)
                aclrt_san_task_ranges(&body->tasks[i], rs, depth + 1);
        break;
    }
    default: /* host functions, callbacks, host kernels, external tasks: declared only; waits and records: none */
        break;
    }
}

#endif /* ACLRT_IMPL_SANITIZE_SAN_TASK_H */
