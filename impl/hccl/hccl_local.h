/*
 * impl/hccl/hccl_local.h - the in-process engine: ranks that are threads of
 * one process (HcclCommInitAll, or threads sharing one root info) share a
 * team, and an operation moves data with the CPU, in host memory.
 *
 *   - Collectives meet in a slot: a rank's k-th collective on the
 *     communicator takes slot k mod ACLRT_HCCL_SLOTS. The last rank to
 *     arrive checks that every rank asked for the same operation, runs it
 *     for all of them on its own thread, and finishes every rank's
 *     operation. Nobody waits: a rank that arrives early returns at once,
 *     its stream parked on the task until then. A rank cannot be a slot
 *     ahead of another (its stream waits for the collective before its
 *     next one starts), so two slots would do; more let a rank use several
 *     streams.
 *   - Sends and receives (HcclSend, HcclRecv, a batch, a group) meet in a
 *     list of unmatched items: an item takes the oldest unmatched item of
 *     the other direction between the same two ranks, so pairs match in the
 *     order they were issued. A batch finishes when its last item is
 *     matched and copied.
 *   - The team's lock guards slots and list; the data moves outside it.
 *   - Operations wait at most the exec timeout: the engine thread's watch
 *     (hccl_engine.h) fails what is past its deadline, and the team is
 *     broken from then on: every later operation fails at once (a peer that
 *     never came would shift every later match).
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_LOCAL_H
#define ACLRT_IMPL_HCCL_HCCL_LOCAL_H

#include "../core/base.h"
#include "../core/clock.h"
#include "hccl_abi.h"
#include "hccl_comm.h"
#include "hccl_op.h"
#include "hccl_reduce.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ACLRT_HCCL_SLOTS 8u
#define ACLRT_HCCL_BLOCK_BYTES 32768u /* the reduction's scratch, on the stack */

struct aclrt_hccl_slot {
    uint64_t seq;                /* the collective number it holds while `arrived` > 0 */
    uint32_t arrived;
    struct aclrt_hccl_op **ops;  /* by rank */
};

/* One unmatched send or receive item. */
struct aclrt_hccl_item {
    struct aclrt_hccl_op *op;
    uint32_t owner, peer;        /* the rank that issued it, the rank it names */
    bool send;
    void *data;
    uint64_t count;
    HcclDataType type;
    struct aclrt_hccl_item *next;
};

struct aclrt_hccl_team {
    pthread_mutex_t lock;
    uint32_t nranks;
    uint32_t refs;                     /* communicators (ranks) holding the team; global list lock */
    int broken;                        /* HcclResult that broke it; every later operation fails */
    uint64_t *next_seq;                /* by rank: its next collective number */
    struct aclrt_hccl_slot slots[ACLRT_HCCL_SLOTS];
    struct aclrt_hccl_item *items;     /* unmatched, oldest first */
    struct aclrt_hccl_team *all_next;  /* every team, for the timeout watch */
};

static pthread_mutex_t aclrt_hccl_teams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aclrt_hccl_team *aclrt_hccl_teams;

ACLRT_INTERNAL struct aclrt_hccl_team *aclrt_hccl_team_new(uint32_t nranks)
{
    struct aclrt_hccl_team *t = (struct aclrt_hccl_team *)calloc(1, sizeof *t);
    struct aclrt_hccl_op **ops = (struct aclrt_hccl_op **)calloc((size_t)ACLRT_HCCL_SLOTS * nranks, sizeof *ops);
    uint64_t *seq = (uint64_t *)calloc(nranks, sizeof *seq);
    if (t == NULL || ops == NULL || seq == NULL) {
        free(t), free(ops), free(seq);
        return NULL;
    }
    pthread_mutex_init(&t->lock, NULL);
    t->nranks = nranks;
    t->refs = nranks;
    t->next_seq = seq;
    for (uint32_t i = 0; i < ACLRT_HCCL_SLOTS; i++)
        t->slots[i].ops = ops + (size_t)i * nranks;
    pthread_mutex_lock(&aclrt_hccl_teams_lock);
    t->all_next = aclrt_hccl_teams;
    aclrt_hccl_teams = t;
    pthread_mutex_unlock(&aclrt_hccl_teams_lock);
    return t;
}

/* A rank leaves the team (its communicator is destroyed); the last one frees it. */
ACLRT_INTERNAL void aclrt_hccl_team_put(struct aclrt_hccl_team *t)
{
    bool last = false;
    pthread_mutex_lock(&aclrt_hccl_teams_lock);
    if (--t->refs == 0) {
        last = true;
        for (struct aclrt_hccl_team **p = &aclrt_hccl_teams; *p != NULL; p = &(*p)->all_next)
            if (*p == t) {
                *p = t->all_next;
                break;
            }
    }
    pthread_mutex_unlock(&aclrt_hccl_teams_lock);
    if (!last)
        return;
    free(t->slots[0].ops);
    free(t->next_seq);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* ---- moving the data: the last rank to arrive runs the collective for all ---- */

static size_t aclrt_hccl_span(uint64_t count, size_t es)
{
    return (size_t)count * es;
}

/* out[j] = op over ranks i of in[i] (elements [0, count)), blockwise through the stack. */
static void aclrt_hccl_reduce_into(const char *const *in, char *const *out, uint32_t nin, uint32_t nout,
                                   uint64_t count, HcclDataType type, HcclReduceOp op)
{
    size_t es = aclrt_hccl_type_size(type);
    size_t per = ACLRT_HCCL_BLOCK_BYTES / es;
    char tmp[ACLRT_HCCL_BLOCK_BYTES] ACLRT_ALIGNED(64);
    for (uint64_t done = 0; done < count; done += per) {
        size_t n = count - done < per ? (size_t)(count - done) : per;
        size_t off = (size_t)done * es;
        memcpy(tmp, in[0] + off, n * es);
        for (uint32_t i = 1; i < nin; i++)
            aclrt_hccl_reduce(tmp, in[i] + off, n, type, op);
        /* Every input of this block is read before any output is written: in place is fine. */
        for (uint32_t j = 0; j < nout; j++)
            if (out[j] != NULL)
                memcpy(out[j] + off, tmp, n * es);
    }
}

/*
 * The send buffers the copies read, snapshotted when a send overlaps a
 * receive of any rank (in-place calls): `keep` holds the copies.
 */
static bool aclrt_hccl_snapshot(struct aclrt_hccl_op **ops, uint32_t n, const size_t *send_bytes,
                                const size_t *recv_bytes, const char **src, char **keep)
{
    *keep = NULL;
    bool any = false;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        src[i] = (const char *)ops[i]->a.send;
        total += send_bytes[i];
        for (uint32_t j = 0; j < n && !any; j++)
            any = aclrt_hccl_overlap(ops[i]->a.send, send_bytes[i], ops[j]->a.recv, recv_bytes[j]);
    }
    if (!any)
        return true;
    char *copy = (char *)malloc(total ? total : 1);
    if (copy == NULL)
        return false;
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(copy + at, ops[i]->a.send, send_bytes[i]);
        src[i] = copy + at;
        at += send_bytes[i];
    }
    *keep = copy;
    return true;
}

/* Runs collective `ops` (one per rank, checked alike); HCCL_E_MEMORY if a snapshot could not be made. */
static HcclResult aclrt_hccl_local_run(struct aclrt_hccl_op **ops, uint32_t n)
{
    const struct aclrt_hccl_args *a0 = &ops[0]->a;
    size_t es = aclrt_hccl_type_size(a0->type);
    uint64_t count = a0->count;
    const char *in_s[64], **in = n <= 64 ? in_s : (const char **)malloc(n * sizeof *in);
    char *out_s[64], **out = n <= 64 ? out_s : (char **)malloc(n * sizeof *out);
    size_t sb_s[64], *sb = n <= 64 ? sb_s : (size_t *)malloc(n * sizeof *sb);
    size_t rb_s[64], *rb = n <= 64 ? rb_s : (size_t *)malloc(n * sizeof *rb);
    char *keep = NULL;
    HcclResult r = HCCL_SUCCESS;
    if (in == NULL || out == NULL || sb == NULL || rb == NULL) {
        r = HCCL_E_MEMORY;
        goto done;
    }
    switch (a0->kind) {
    case ACLRT_HCCL_ALLREDUCE:
    case ACLRT_HCCL_REDUCE:
        for (uint32_t i = 0; i < n; i++) {
            in[i] = (const char *)ops[i]->a.send;
            out[i] = a0->kind == ACLRT_HCCL_ALLREDUCE || i == a0->root ? (char *)ops[i]->a.recv : NULL;
        }
        aclrt_hccl_reduce_into(in, out, n, n, count, a0->type, a0->op);
        break;
    case ACLRT_HCCL_REDUCE_SCATTER:
    case ACLRT_HCCL_REDUCE_SCATTERV:
        for (uint32_t i = 0; i < n; i++) {
            uint64_t all = 0;
            for (uint32_t j = 0; j < n; j++)
                all = a0->kind == ACLRT_HCCL_REDUCE_SCATTER ? count * n
                                                            : (ops[i]->a.displs[j] + ops[i]->a.counts[j] > all
                                                                   ? ops[i]->a.displs[j] + ops[i]->a.counts[j]
                                                                   : all);
            sb[i] = aclrt_hccl_span(all, es);
            rb[i] = aclrt_hccl_span(ops[i]->a.count, es);
        }
        if (!aclrt_hccl_snapshot(ops, n, sb, rb, in, &keep)) {
            r = HCCL_E_MEMORY;
            break;
        }
        for (uint32_t j = 0; j < n; j++) {
            const char *blk_s[64], **blk = n <= 64 ? blk_s : (const char **)malloc(n * sizeof *blk);
            if (blk == NULL) {
                r = HCCL_E_MEMORY;
                break;
            }
            for (uint32_t i = 0; i < n; i++)
                blk[i] = in[i] + aclrt_hccl_span(a0->kind == ACLRT_HCCL_REDUCE_SCATTER ? (uint64_t)j * count
                                                                                       : ops[i]->a.displs[j],
                                                 es);
            char *dst = (char *)ops[j]->a.recv;
            aclrt_hccl_reduce_into(blk, &dst, n, 1, ops[j]->a.count, a0->type, a0->op);
            if (blk != blk_s)
                free(blk);
        }
        break;
    case ACLRT_HCCL_BROADCAST:
        for (uint32_t j = 0; j < n; j++)
            if (j != a0->root && ops[j]->a.send != ops[a0->root]->a.send)
                memmove(ops[j]->a.send, ops[a0->root]->a.send, aclrt_hccl_span(count, es));
        break;
    case ACLRT_HCCL_ALLGATHER:
    case ACLRT_HCCL_ALLGATHERV:
    case ACLRT_HCCL_SCATTER:
    case ACLRT_HCCL_ALLTOALL:
    case ACLRT_HCCL_ALLTOALLV:
    case ACLRT_HCCL_ALLTOALLVC: {
        /* Sizes of each rank's send and receive buffer, for the overlap check. */
        for (uint32_t i = 0; i < n; i++) {
            const struct aclrt_hccl_args *a = &ops[i]->a;
            uint64_t s = 0, q = 0;
            switch (a0->kind) {
            case ACLRT_HCCL_ALLGATHER: s = count, q = count * n; break;
            case ACLRT_HCCL_ALLGATHERV:
                s = a->count;
                for (uint32_t j = 0; j < n; j++)
                    q = a->displs[j] + a->counts[j] > q ? a->displs[j] + a->counts[j] : q;
                break;
            case ACLRT_HCCL_SCATTER: s = i == a0->root ? count * n : 0, q = count; break;
            case ACLRT_HCCL_ALLTOALL: s = q = count * n; break;
            case ACLRT_HCCL_ALLTOALLV:
                for (uint32_t j = 0; j < n; j++) {
                    s = a->v[n + j] + a->v[j] > s ? a->v[n + j] + a->v[j] : s;
                    q = a->v[3 * n + j] + a->v[2 * n + j] > q ? a->v[3 * n + j] + a->v[2 * n + j] : q;
                }
                break;
            default: /* ALLTOALLVC: row i sent, column i received */
                for (uint32_t j = 0; j < n; j++)
                    s += a->v[(size_t)i * n + j], q += a->v[(size_t)j * n + i];
                break;
            }
            sb[i] = aclrt_hccl_span(s, es);
            rb[i] = aclrt_hccl_span(q, es);
        }
        if (!aclrt_hccl_snapshot(ops, n, sb, rb, in, &keep)) {
            r = HCCL_E_MEMORY;
            break;
        }
        for (uint32_t i = 0; i < n; i++) {     /* from rank i */
            for (uint32_t j = 0; j < n; j++) { /* to rank j */
                const struct aclrt_hccl_args *ai = &ops[i]->a, *aj = &ops[j]->a;
                uint64_t from, to, len;
                switch (a0->kind) {
                case ACLRT_HCCL_ALLGATHER: from = 0, to = (uint64_t)i * count, len = count; break;
                case ACLRT_HCCL_ALLGATHERV: from = 0, to = aj->displs[i], len = ai->count; break;
                case ACLRT_HCCL_SCATTER:
                    if (i != a0->root)
                        continue;
                    from = (uint64_t)j * count, to = 0, len = count;
                    break;
                case ACLRT_HCCL_ALLTOALL: from = (uint64_t)j * count, to = (uint64_t)i * count, len = count; break;
                case ACLRT_HCCL_ALLTOALLV: from = ai->v[n + j], to = aj->v[3 * n + i], len = ai->v[j]; break;
                default: {
                    uint64_t sd = 0, rd = 0;
                    for (uint32_t k = 0; k < j; k++)
                        sd += ai->v[(size_t)i * n + k];
                    for (uint32_t k = 0; k < i; k++)
                        rd += ai->v[(size_t)k * n + j];
                    from = sd, to = rd, len = ai->v[(size_t)i * n + j];
                    break;
                }
                }
                char *dst = (char *)aj->recv + aclrt_hccl_span(to, es);
                const char *src = in[i] + aclrt_hccl_span(from, es);
                if (dst != src)
                    memmove(dst, src, aclrt_hccl_span(len, es));
            }
        }
        break;
    }
    default: /* BARRIER: nothing moves */
        break;
    }
done:
    free(keep);
    if (in != in_s)
        free((void *)in);
    if (out != out_s)
        free(out);
    if (sb != sb_s)
        free(sb);
    if (rb != rb_s)
        free(rb);
    return r;
}

/* What differs between two ranks' calls of one collective; NULL when they agree. */
static const char *aclrt_hccl_mismatch(const struct aclrt_hccl_args *a, const struct aclrt_hccl_args *b, uint32_t n)
{
    if (a->kind != b->kind)
        return "the ranks called different collectives at the same position";
    if (a->type != b->type || a->recv_type != b->recv_type)
        return "the ranks gave different data types";
    switch (a->kind) {
    case ACLRT_HCCL_ALLREDUCE:
    case ACLRT_HCCL_REDUCE:
    case ACLRT_HCCL_REDUCE_SCATTER:
    case ACLRT_HCCL_REDUCE_SCATTERV:
        if (a->op != b->op)
            return "the ranks gave different reduction operations";
        break;
    default: break;
    }
    if (a->root != b->root)
        return "the ranks gave different roots";
    switch (a->kind) {
    case ACLRT_HCCL_ALLGATHERV:
    case ACLRT_HCCL_REDUCE_SCATTERV:
    case ACLRT_HCCL_ALLTOALLV:
        return NULL; /* checked per pair when the data moves */
    case ACLRT_HCCL_ALLTOALLVC:
        if (memcmp(a->v, b->v, (size_t)n * n * sizeof *a->v) != 0)
            return "the ranks gave different count matrices";
        return NULL;
    default:
        if (a->count != b->count)
            return "the ranks gave different counts";
        return NULL;
    }
}

/* The V kinds: what rank i sends to j must be what j expects from i. */
static const char *aclrt_hccl_mismatch_v(struct aclrt_hccl_op **ops, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            const struct aclrt_hccl_args *ai = &ops[i]->a, *aj = &ops[j]->a;
            switch (ai->kind) {
            case ACLRT_HCCL_ALLGATHERV:
                if (aj->counts[i] != ai->count)
                    return "a rank's send count differs from the receive count the others give for it";
                break;
            case ACLRT_HCCL_REDUCE_SCATTERV:
                if (ai->counts[j] != aj->count)
                    return "a rank's receive count differs from the send count the others give for it";
                break;
            case ACLRT_HCCL_ALLTOALLV:
                if (ai->v[j] != aj->v[2 * n + i])
                    return "a send count differs from the matching receive count";
                break;
            default: return NULL;
            }
        }
    return NULL;
}

static void aclrt_hccl_fail_all(struct aclrt_hccl_op **ops, uint32_t n, HcclResult r, const char *why)
{
    for (uint32_t i = 0; i < n; i++)
        if (ops[i] != NULL)
            aclrt_hccl_op_finish(ops[i], r, why);
}

/* A rank's collective reaches its stream's front. */
ACLRT_INTERNAL void aclrt_hccl_local_collective(struct aclrt_hccl_op *op)
{
    struct aclrt_hccl_team *t = op->comm->team;
    uint32_t n = t->nranks, rank = op->comm->rank;
    struct aclrt_hccl_op *mine_s[64], **mine = n <= 64 ? mine_s : (struct aclrt_hccl_op **)malloc(n * sizeof *mine);
    if (mine == NULL) {
        aclrt_hccl_op_finish(op, HCCL_E_MEMORY, "out of memory");
        return;
    }
    const char *why = NULL;
    HcclResult fail = HCCL_SUCCESS;
    bool run = false;
    pthread_mutex_lock(&t->lock);
    uint64_t seq = t->next_seq[rank]++;
    struct aclrt_hccl_slot *s = &t->slots[seq % ACLRT_HCCL_SLOTS];
    if (t->broken != HCCL_SUCCESS) {
        fail = (HcclResult)t->broken;
        why = "the communicator is broken by an earlier failure (a peer timed out or mismatched)";
    } else if (s->arrived > 0 && s->seq != seq) {
        fail = HCCL_E_INTERNAL;
        why = "a rank is more collectives ahead of another than the communicator holds";
    } else {
        if (s->arrived == 0)
            s->seq = seq;
        s->ops[rank] = op;
        if (++s->arrived == n) {
            memcpy(mine, s->ops, n * sizeof *mine);
            memset(s->ops, 0, n * sizeof *s->ops);
            s->arrived = 0;
            run = true;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (fail != HCCL_SUCCESS) {
        aclrt_hccl_op_finish(op, fail, why);
    } else if (run) {
        for (uint32_t i = 1; i < n && why == NULL; i++)
            why = aclrt_hccl_mismatch(&mine[0]->a, &mine[i]->a, n);
        if (why == NULL)
            why = aclrt_hccl_mismatch_v(mine, n);
        HcclResult r = why != NULL ? HCCL_E_PARA : aclrt_hccl_local_run(mine, n);
        if (r == HCCL_E_PARA) {
            pthread_mutex_lock(&t->lock);
            t->broken = HCCL_E_PARA;
            pthread_mutex_unlock(&t->lock);
        }
        aclrt_hccl_fail_all(mine, n, r, why != NULL ? why : "out of memory");
    }
    if (mine != mine_s)
        free(mine);
}

/* One item of a batch is done (matched and copied, or given up): the batch finishes with its last. */
static void aclrt_hccl_item_done(struct aclrt_hccl_op *op, HcclResult r, uint32_t items)
{
    if (r != HCCL_SUCCESS) {
        int expected = HCCL_SUCCESS;
        atomic_compare_exchange_strong_explicit(&op->result, &expected, (int)r, memory_order_relaxed,
                                                memory_order_relaxed);
    }
    /* Acq_rel: the last item sees the result every other item stored. */
    if (atomic_fetch_sub_explicit(&op->remaining, items, memory_order_acq_rel) == items) {
        HcclResult res = (HcclResult)atomic_load_explicit(&op->result, memory_order_relaxed);
        aclrt_hccl_op_finish(op, res,
                             res == HCCL_E_TIMEOUT ? "a send or receive found no partner within HCCL_EXEC_TIMEOUT"
                             : res == HCCL_E_PARA  ? "a send and its receive differ in count or data type"
                                                   : "the communicator is broken by an earlier failure");
    }
}

/* A rank's batch of sends and receives reaches its stream's front. */
ACLRT_INTERNAL void aclrt_hccl_local_batch(struct aclrt_hccl_op *op)
{
    struct aclrt_hccl_team *t = op->comm->team;
    uint32_t n = op->a.nitems, rank = op->comm->rank;
    if (n == 0) {
        aclrt_hccl_op_finish(op, HCCL_SUCCESS, "");
        return;
    }
    struct aclrt_hccl_item *mine = (struct aclrt_hccl_item *)calloc(n, sizeof *mine);
    if (mine == NULL) {
        aclrt_hccl_op_finish(op, HCCL_E_MEMORY, "out of memory");
        return;
    }
    /* The items live until the batch finishes: unmatched ones are on the team's list meanwhile. */
    op->scratch = mine;
    /* One more than the items: this thread's hold on `mine` while it copies the pairs it matched. */
    atomic_store_explicit(&op->remaining, n + 1, memory_order_relaxed);
    /* Matched pairs, copied after the lock: (send, receive). */
    struct aclrt_hccl_item **pairs = (struct aclrt_hccl_item **)calloc(2 * (size_t)n, sizeof *pairs);
    if (pairs == NULL) {
        aclrt_hccl_op_finish(op, HCCL_E_MEMORY, "out of memory");
        return;
    }
    uint32_t npairs = 0;
    pthread_mutex_lock(&t->lock);
    int broken = t->broken;
    for (uint32_t i = 0; i < n && broken == HCCL_SUCCESS; i++) {
        const HcclSendRecvItem *it = &op->a.items[i];
        struct aclrt_hccl_item *m = &mine[i];
        m->op = op, m->owner = rank, m->peer = it->remoteRank, m->send = it->sendRecvType == HCCL_SEND;
        m->data = it->buf, m->count = it->count, m->type = it->dataType;
        struct aclrt_hccl_item **p = &t->items;
        for (; *p != NULL; p = &(*p)->next)
            if ((*p)->send != m->send && (*p)->owner == m->peer && (*p)->peer == m->owner)
                break;
        if (*p != NULL) {
            struct aclrt_hccl_item *other = *p;
            *p = other->next;
            pairs[2 * npairs] = m->send ? m : other;
            pairs[2 * npairs + 1] = m->send ? other : m;
            npairs++;
        } else {
            m->next = NULL;
            struct aclrt_hccl_item **tail = &t->items;
            while (*tail != NULL)
                tail = &(*tail)->next;
            *tail = m;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (broken != HCCL_SUCCESS) {
        free(pairs);
        aclrt_hccl_item_done(op, (HcclResult)broken, n + 1);
        return;
    }
    for (uint32_t k = 0; k < npairs; k++) {
        struct aclrt_hccl_item *s = pairs[2 * k], *q = pairs[2 * k + 1];
        HcclResult r = HCCL_SUCCESS;
        size_t bytes = aclrt_hccl_span(s->count, aclrt_hccl_type_size(s->type));
        if (s->count != q->count || aclrt_hccl_type_size(s->type) != aclrt_hccl_type_size(q->type))
            r = HCCL_E_PARA;
        else if (s->data != q->data)
            memmove(q->data, s->data, bytes);
        aclrt_hccl_item_done(s->op, r, 1);
        aclrt_hccl_item_done(q->op, r, 1);
    }
    free(pairs);
    aclrt_hccl_item_done(op, HCCL_SUCCESS, 1);
}

/*
 * The timeout watch (engine thread): a team with an operation past its
 * deadline is broken, and everything waiting in it fails: collectives with
 * HCCL_E_TIMEOUT, batches with their unmatched items.
 */
ACLRT_INTERNAL void aclrt_hccl_local_expire(uint64_t now)
{
    pthread_mutex_lock(&aclrt_hccl_teams_lock);
    for (struct aclrt_hccl_team *t = aclrt_hccl_teams; t != NULL; t = t->all_next) {
        struct aclrt_hccl_op *failed = NULL; /* collectives, chained through next */
        struct aclrt_hccl_item *items = NULL;
        pthread_mutex_lock(&t->lock);
        bool expired = false;
        for (uint32_t i = 0; i < ACLRT_HCCL_SLOTS && !expired; i++)
            for (uint32_t r = 0; r < t->nranks && !expired; r++)
                expired = t->slots[i].ops[r] != NULL && t->slots[i].ops[r]->deadline_ns <= now;
        for (struct aclrt_hccl_item *it = t->items; it != NULL && !expired; it = it->next)
            expired = it->op->deadline_ns <= now;
        if (expired) {
            t->broken = HCCL_E_TIMEOUT;
            for (uint32_t i = 0; i < ACLRT_HCCL_SLOTS; i++) {
                for (uint32_t r = 0; r < t->nranks; r++) {
                    struct aclrt_hccl_op *op = t->slots[i].ops[r];
                    if (op != NULL) {
                        op->next = failed;
                        failed = op;
                        t->slots[i].ops[r] = NULL;
                    }
                }
                t->slots[i].arrived = 0;
            }
            items = t->items;
            t->items = NULL;
        }
        pthread_mutex_unlock(&t->lock);
        while (failed != NULL) {
            struct aclrt_hccl_op *op = failed;
            failed = op->next;
            aclrt_hccl_op_finish(op, HCCL_E_TIMEOUT, "not every rank reached the collective within HCCL_EXEC_TIMEOUT");
        }
        while (items != NULL) {
            struct aclrt_hccl_item *it = items;
            items = it->next; /* read before item_done may free the batch that holds it */
            aclrt_hccl_item_done(it->op, HCCL_E_TIMEOUT, 1);
        }
    }
    pthread_mutex_unlock(&aclrt_hccl_teams_lock);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_LOCAL_H */
