/*
 * impl/hccl/hccl_mpi.h - the MPI engine: HCCL operations as MPI's
 * nonblocking operations on one MPI communicator per HCCL communicator.
 *
 * Compiled against the MPI library's mpi.h, into the plugin
 * (scripts/hccl_mpi.c) or into the program (ACLRT_HCCL_MPI); the runtime
 * reaches it only through struct aclrt_hccl_mpi (hccl_abi.h), from its one
 * engine thread.
 *
 *   - Types: MPI's fixed-width integers, MPI_FLOAT and MPI_DOUBLE; fp16 and
 *     bf16 travel as MPI_UINT16_T, the 8-bit formats as MPI_UINT8_T, int128
 *     as 16 contiguous bytes. Reductions MPI has (integers; float and double
 *     sums and products) are MPI's; the others (fp16 and bf16, and MAX/MIN
 *     of float and double, where a NaN must win as on the device) are user
 *     operations over hccl_reduce.h.
 *   - Send and receive of a batch: MPI_Isend/MPI_Irecv with one tag on the
 *     private communicator, so pairs match in the order they were issued.
 *   - Aliasing the caller is allowed (send = receive buffer) becomes
 *     MPI_IN_PLACE where MPI has it; otherwise the send side is copied first.
 *   - Errors return (MPI_ERRORS_RETURN on every communicator made here).
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_MPI_H
#define ACLRT_IMPL_HCCL_HCCL_MPI_H

#include "hccl_abi.h"
#include "hccl_reduce.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACLRT_HCCL_MPI_P2P_TAG 0x4843

struct aclrt_hccl_mpi_req {
    int n;
    void *scratch;           /* freed with the request: copies of send data, MPI's count arrays */
    MPI_Request r[];
};

static int aclrt_hccl_mpi_self_init; /* this engine called MPI_Init_thread */
static MPI_Datatype aclrt_hccl_mpi_int128 = MPI_DATATYPE_NULL;
static MPI_Op aclrt_hccl_mpi_user_ops[4][4]; /* [fp16, bf16, fp32, fp64][op] */
static int aclrt_hccl_mpi_ops_made;

static HcclResult aclrt_hccl_mpi_err(int rc, const char *what, char *msg)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    snprintf(msg, ACLRT_HCCL_MSG, "%s failed: %.200s", what, text);
    return HCCL_E_NETWORK;
}

#define ACLRT_HCCL_MPI_USER_OP(name_, T_, op_)                                                       \
    static void name_(void *in, void *inout, int *len, MPI_Datatype *dt)                             \
    {                                                                                                \
        (void)dt;                                                                                    \
        aclrt_hccl_reduce(inout, in, (size_t)*len, T_, op_);                                         \
    }
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f16_sum, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_SUM)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f16_prod, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_PROD)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f16_max, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MAX)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f16_min, HCCL_DATA_TYPE_FP16, HCCL_REDUCE_MIN)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_bf16_sum, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_SUM)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_bf16_prod, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_PROD)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_bf16_max, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MAX)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_bf16_min, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MIN)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f32_max, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f32_min, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MIN)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f64_max, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MAX)
ACLRT_HCCL_MPI_USER_OP(aclrt_hccl_mpi_f64_min, HCCL_DATA_TYPE_FP64, HCCL_REDUCE_MIN)

static void aclrt_hccl_mpi_make_ops(void)
{
    if (aclrt_hccl_mpi_ops_made)
        return;
    MPI_User_function *fns[4][4] = {
        {aclrt_hccl_mpi_f16_sum, aclrt_hccl_mpi_f16_prod, aclrt_hccl_mpi_f16_max, aclrt_hccl_mpi_f16_min},
        {aclrt_hccl_mpi_bf16_sum, aclrt_hccl_mpi_bf16_prod, aclrt_hccl_mpi_bf16_max, aclrt_hccl_mpi_bf16_min},
        {NULL, NULL, aclrt_hccl_mpi_f32_max, aclrt_hccl_mpi_f32_min},
        {NULL, NULL, aclrt_hccl_mpi_f64_max, aclrt_hccl_mpi_f64_min},
    };
    for (int t = 0; t < 4; t++)
        for (int o = 0; o < 4; o++)
            aclrt_hccl_mpi_user_ops[t][o] = MPI_OP_NULL;
    for (int t = 0; t < 4; t++)
        for (int o = 0; o < 4; o++)
            if (fns[t][o] != NULL)
                MPI_Op_create(fns[t][o], 1, &aclrt_hccl_mpi_user_ops[t][o]);
    MPI_Type_contiguous(16, MPI_BYTE, &aclrt_hccl_mpi_int128);
    MPI_Type_commit(&aclrt_hccl_mpi_int128);
    aclrt_hccl_mpi_ops_made = 1;
}

static MPI_Datatype aclrt_hccl_mpi_type(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return MPI_INT8_T;
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0: return MPI_UINT8_T;
    case HCCL_DATA_TYPE_INT16: return MPI_INT16_T;
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return MPI_UINT16_T;
    case HCCL_DATA_TYPE_INT32: return MPI_INT32_T;
    case HCCL_DATA_TYPE_UINT32: return MPI_UINT32_T;
    case HCCL_DATA_TYPE_INT64: return MPI_INT64_T;
    case HCCL_DATA_TYPE_UINT64: return MPI_UINT64_T;
    case HCCL_DATA_TYPE_FP32: return MPI_FLOAT;
    case HCCL_DATA_TYPE_FP64: return MPI_DOUBLE;
    case HCCL_DATA_TYPE_INT128: return aclrt_hccl_mpi_int128;
    default: return MPI_DATATYPE_NULL;
    }
}

static MPI_Op aclrt_hccl_mpi_op(HcclDataType t, HcclReduceOp op)
{
    int o = op == HCCL_REDUCE_SUM ? 0 : op == HCCL_REDUCE_PROD ? 1 : op == HCCL_REDUCE_MAX ? 2 : 3;
    switch (t) {
    case HCCL_DATA_TYPE_FP16: return aclrt_hccl_mpi_user_ops[0][o];
    case HCCL_DATA_TYPE_BFP16: return aclrt_hccl_mpi_user_ops[1][o];
    case HCCL_DATA_TYPE_FP32:
        if (o >= 2)
            return aclrt_hccl_mpi_user_ops[2][o];
        break;
    case HCCL_DATA_TYPE_FP64:
        if (o >= 2)
            return aclrt_hccl_mpi_user_ops[3][o];
        break;
    default: break;
    }
    static const MPI_Op builtin[4] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    return builtin[o];
}

static HcclResult aclrt_hccl_mpi_init(int *world_rank, int *world_size, int *thread_level, char *msg)
{
    int inited = 0, finalized = 0, rc;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (finalized) {
        snprintf(msg, ACLRT_HCCL_MSG, "MPI was finalized already (MPI_Finalize): it cannot start again");
        return HCCL_E_UNAVAIL;
    }
    if (!inited) {
        int provided = 0;
        rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
        if (rc != MPI_SUCCESS)
            return aclrt_hccl_mpi_err(rc, "MPI_Init_thread", msg);
        aclrt_hccl_mpi_self_init = 1;
    }
    aclrt_hccl_mpi_make_ops();
    MPI_Query_thread(thread_level);
    MPI_Comm_rank(MPI_COMM_WORLD, world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, world_size);
    return HCCL_SUCCESS;
}

static struct aclrt_hccl_mpi_req *aclrt_hccl_mpi_req_new(int n, size_t scratch)
{
    struct aclrt_hccl_mpi_req *r = (struct aclrt_hccl_mpi_req *)calloc(1, sizeof *r + (size_t)n * sizeof(MPI_Request));
    if (r == NULL)
        return NULL;
    r->n = n;
    for (int i = 0; i < n; i++)
        r->r[i] = MPI_REQUEST_NULL;
    if (scratch > 0 && (r->scratch = malloc(scratch)) == NULL) {
        free(r);
        return NULL;
    }
    return r;
}

static void aclrt_hccl_mpi_req_free(struct aclrt_hccl_mpi_req *r)
{
    free(r->scratch);
    free(r);
}

static HcclResult aclrt_hccl_mpi_post(int world_rank, int tag, const void *buf, size_t len, void **req, char *msg)
{
    struct aclrt_hccl_mpi_req *r = aclrt_hccl_mpi_req_new(1, len);
    if (r == NULL) {
        snprintf(msg, ACLRT_HCCL_MSG, "out of memory for a message of %zu bytes", len);
        return HCCL_E_MEMORY;
    }
    memcpy(r->scratch, buf, len);
    int rc = MPI_Isend(r->scratch, (int)len, MPI_BYTE, world_rank, tag, MPI_COMM_WORLD, &r->r[0]);
    if (rc != MPI_SUCCESS) {
        aclrt_hccl_mpi_req_free(r);
        return aclrt_hccl_mpi_err(rc, "MPI_Isend", msg);
    }
    *req = r;
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_mpi_take(int tag, void *buf, size_t cap, int *src, size_t *len, char *msg)
{
    int flag = 0, count = 0;
    MPI_Status st;
    *len = 0;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
    if (rc != MPI_SUCCESS)
        return aclrt_hccl_mpi_err(rc, "MPI_Iprobe", msg);
    if (!flag)
        return HCCL_SUCCESS;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count <= 0 || (size_t)count > cap) {
        char sink;
        MPI_Recv(&sink, 0, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        snprintf(msg, ACLRT_HCCL_MSG, "a message of %d bytes on the runtime's tag %d from rank %d is no rendezvous",
                 count, tag, st.MPI_SOURCE);
        return HCCL_E_INTERNAL;
    }
    rc = MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return aclrt_hccl_mpi_err(rc, "MPI_Recv", msg);
    *src = st.MPI_SOURCE;
    *len = (size_t)count;
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_mpi_comm_create(const int *ranks, int n, int tag, void **comm, char *msg)
{
    MPI_Group world, g;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int rc = MPI_Group_incl(world, n, ranks, &g);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, tag, &c);
        MPI_Group_free(&g);
    }
    MPI_Group_free(&world);
    if (rc != MPI_SUCCESS)
        return aclrt_hccl_mpi_err(rc, "MPI_Comm_create_group", msg);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm *box = (MPI_Comm *)malloc(sizeof *box);
    if (box == NULL) {
        MPI_Comm_free(&c);
        snprintf(msg, ACLRT_HCCL_MSG, "out of memory");
        return HCCL_E_MEMORY;
    }
    *box = c;
    *comm = box;
    return HCCL_SUCCESS;
}

static void aclrt_hccl_mpi_comm_free(void *comm)
{
    MPI_Comm *box = (MPI_Comm *)comm;
    MPI_Comm_free(box);
    free(box);
}

/* Counts as MPI's ints; 0 if one does not fit. */
static int aclrt_hccl_mpi_ints(const uint64_t *in, int n, int *out)
{
    for (int i = 0; i < n; i++) {
        if (in[i] > INT_MAX)
            return 0;
        out[i] = (int)in[i];
    }
    return 1;
}

static HcclResult aclrt_hccl_mpi_start(void *comm_box, int rank, int nranks, const struct aclrt_hccl_args *a, void **out,
                                       char *msg)
{
    MPI_Comm comm = *(MPI_Comm *)comm_box;
    MPI_Datatype t = aclrt_hccl_mpi_type(a->type);
    size_t es = aclrt_hccl_type_size(a->type);
    struct aclrt_hccl_mpi_req *r = NULL;
    int rc = MPI_SUCCESS;
    const char *what = "";
    int n = nranks;
    if (a->kind != ACLRT_HCCL_BATCH && a->count > INT_MAX) {
        snprintf(msg, ACLRT_HCCL_MSG, "count %llu is beyond what one MPI call moves (%d elements)",
                 (unsigned long long)a->count, INT_MAX);
        return HCCL_E_NOT_SUPPORT;
    }
    int count = (int)a->count;
    /* Room for the int arrays of the V kinds, after the requests. */
    size_t ints = (size_t)4 * (size_t)n * sizeof(int);
    switch (a->kind) {
    case ACLRT_HCCL_ALLREDUCE:
        r = aclrt_hccl_mpi_req_new(1, 0);
        if (r == NULL)
            break;
        what = "MPI_Iallreduce";
        rc = MPI_Iallreduce(a->send == a->recv ? MPI_IN_PLACE : a->send, a->recv, count, t,
                            aclrt_hccl_mpi_op(a->type, a->op), comm, &r->r[0]);
        break;
    case ACLRT_HCCL_BROADCAST:
        r = aclrt_hccl_mpi_req_new(1, 0);
        if (r == NULL)
            break;
        what = "MPI_Ibcast";
        rc = MPI_Ibcast(a->send, count, t, (int)a->root, comm, &r->r[0]);
        break;
    case ACLRT_HCCL_REDUCE: {
        r = aclrt_hccl_mpi_req_new(1, 0);
        if (r == NULL)
            break;
        bool root = (uint32_t)rank == a->root;
        what = "MPI_Ireduce";
        rc = MPI_Ireduce(root && a->send == a->recv ? MPI_IN_PLACE : a->send, root ? a->recv : NULL, count, t,
                         aclrt_hccl_mpi_op(a->type, a->op), (int)a->root, comm, &r->r[0]);
        break;
    }
    case ACLRT_HCCL_ALLGATHER: {
        size_t part = (size_t)a->count * es;
        bool in_place = (char *)a->send == (char *)a->recv + (size_t)rank * part;
        bool copy = !in_place && aclrt_hccl_overlap(a->send, part, a->recv, part * (size_t)n);
        r = aclrt_hccl_mpi_req_new(1, copy ? part : 0);
        if (r == NULL)
            break;
        if (copy)
            memcpy(r->scratch, a->send, part);
        what = "MPI_Iallgather";
        rc = MPI_Iallgather(in_place ? MPI_IN_PLACE : copy ? r->scratch : a->send, count, t, a->recv, count, t, comm,
                            &r->r[0]);
        break;
    }
    case ACLRT_HCCL_REDUCE_SCATTER: {
        size_t all = (size_t)a->count * es * (size_t)n;
        bool copy = aclrt_hccl_overlap(a->send, all, a->recv, (size_t)a->count * es);
        r = aclrt_hccl_mpi_req_new(1, copy ? all : 0);
        if (r == NULL)
            break;
        if (copy)
            memcpy(r->scratch, a->send, all);
        what = "MPI_Ireduce_scatter_block";
        rc = MPI_Ireduce_scatter_block(copy ? r->scratch : a->send, a->recv, count, t,
                                       aclrt_hccl_mpi_op(a->type, a->op), comm, &r->r[0]);
        break;
    }
    case ACLRT_HCCL_SCATTER: {
        bool root = (uint32_t)rank == a->root;
        size_t part = (size_t)a->count * es;
        bool copy = root && aclrt_hccl_overlap(a->send, part * (size_t)n, a->recv, part);
        r = aclrt_hccl_mpi_req_new(1, copy ? part * (size_t)n : 0);
        if (r == NULL)
            break;
        if (copy)
            memcpy(r->scratch, a->send, part * (size_t)n);
        what = "MPI_Iscatter";
        rc = MPI_Iscatter(root ? (copy ? r->scratch : a->send) : NULL, count, t, a->recv, count, t, (int)a->root, comm,
                          &r->r[0]);
        break;
    }
    case ACLRT_HCCL_ALLTOALL: {
        size_t all = (size_t)a->count * es * (size_t)n;
        bool copy = aclrt_hccl_overlap(a->send, all, a->recv, all);
        MPI_Datatype rt = aclrt_hccl_mpi_type(a->recv_type);
        r = aclrt_hccl_mpi_req_new(1, copy ? all : 0);
        if (r == NULL)
            break;
        if (copy)
            memcpy(r->scratch, a->send, all);
        what = "MPI_Ialltoall";
        rc = MPI_Ialltoall(copy ? r->scratch : a->send, count, t, a->recv, count, rt, comm, &r->r[0]);
        break;
    }
    case ACLRT_HCCL_ALLGATHERV:
    case ACLRT_HCCL_REDUCE_SCATTERV:
    case ACLRT_HCCL_ALLTOALLV:
    case ACLRT_HCCL_ALLTOALLVC: {
        /* Four int arrays: send counts, send displacements, receive counts, receive displacements. */
        size_t send_bytes = 0;
        int *iv = (int *)malloc(ints);
        if (iv == NULL)
            break;
        int *scnt = iv, *sdsp = iv + n, *rcnt = iv + 2 * n, *rdsp = iv + 3 * n;
        int ok = 1;
        if (a->kind == ACLRT_HCCL_ALLGATHERV) {
            ok = aclrt_hccl_mpi_ints(a->counts, n, rcnt) && aclrt_hccl_mpi_ints(a->displs, n, rdsp);
        } else if (a->kind == ACLRT_HCCL_REDUCE_SCATTERV) {
            ok = aclrt_hccl_mpi_ints(a->counts, n, scnt) && aclrt_hccl_mpi_ints(a->displs, n, sdsp);
            for (int i = 0; i < n; i++)
                send_bytes += (size_t)scnt[i] * es;
        } else if (a->kind == ACLRT_HCCL_ALLTOALLV) {
            ok = aclrt_hccl_mpi_ints(a->v, 4 * n, iv);
        } else {
            /* Row `rank` of the matrix is what this rank sends; column `rank` what it receives. */
            long long so = 0, ro = 0;
            for (int j = 0; j < n && ok; j++) {
                uint64_t s = a->v[(size_t)rank * (size_t)n + (size_t)j], q = a->v[(size_t)j * (size_t)n + (size_t)rank];
                ok = s <= INT_MAX && q <= INT_MAX && so <= INT_MAX && ro <= INT_MAX;
                scnt[j] = (int)s, sdsp[j] = (int)so, rcnt[j] = (int)q, rdsp[j] = (int)ro;
                so += (long long)s, ro += (long long)q;
            }
        }
        if (!ok) {
            free(iv);
            snprintf(msg, ACLRT_HCCL_MSG, "a count or displacement is beyond what one MPI call moves (%d)", INT_MAX);
            return HCCL_E_NOT_SUPPORT;
        }
        if (a->kind == ACLRT_HCCL_REDUCE_SCATTERV) {
            /* MPI's reduce_scatter takes the blocks back to back: pack them (displacements may leave gaps). */
            r = aclrt_hccl_mpi_req_new(1, send_bytes + ints);
            if (r == NULL) {
                free(iv);
                break;
            }
            char *p = (char *)r->scratch;
            for (int i = 0; i < n; i++) {
                memcpy(p, (const char *)a->send + (size_t)sdsp[i] * es, (size_t)scnt[i] * es);
                p += (size_t)scnt[i] * es;
            }
            memcpy(p, iv, ints);
            free(iv);
            what = "MPI_Ireduce_scatter";
            rc = MPI_Ireduce_scatter(r->scratch, a->recv, (int *)(void *)p, t, aclrt_hccl_mpi_op(a->type, a->op), comm,
                                     &r->r[0]);
            break;
        }
        r = aclrt_hccl_mpi_req_new(1, ints);
        if (r == NULL) {
            free(iv);
            break;
        }
        memcpy(r->scratch, iv, ints);
        free(iv);
        iv = (int *)r->scratch;
        scnt = iv, sdsp = iv + n, rcnt = iv + 2 * n, rdsp = iv + 3 * n;
        if (a->kind == ACLRT_HCCL_ALLGATHERV) {
            what = "MPI_Iallgatherv";
            rc = MPI_Iallgatherv(a->send, count, t, a->recv, rcnt, rdsp, t, comm, &r->r[0]);
        } else {
            what = "MPI_Ialltoallv";
            rc = MPI_Ialltoallv(a->send, scnt, sdsp, t, a->recv, rcnt, rdsp, aclrt_hccl_mpi_type(a->recv_type), comm,
                                &r->r[0]);
        }
        break;
    }
    case ACLRT_HCCL_BARRIER:
        r = aclrt_hccl_mpi_req_new(1, 0);
        if (r == NULL)
            break;
        what = "MPI_Ibarrier";
        rc = MPI_Ibarrier(comm, &r->r[0]);
        break;
    case ACLRT_HCCL_BATCH:
        r = aclrt_hccl_mpi_req_new((int)a->nitems, 0);
        if (r == NULL)
            break;
        /* Sends first, then receives: a batch that sends to and receives from the same peer cannot block itself. */
        for (int pass = 0; pass < 2 && rc == MPI_SUCCESS; pass++) {
            for (uint32_t i = 0; i < a->nitems && rc == MPI_SUCCESS; i++) {
                const HcclSendRecvItem *it = &a->items[i];
                bool send = it->sendRecvType == HCCL_SEND;
                if (send != (pass == 0))
                    continue;
                if (it->count > INT_MAX) {
                    aclrt_hccl_mpi_req_free(r);
                    snprintf(msg, ACLRT_HCCL_MSG, "count %llu is beyond what one MPI call moves",
                             (unsigned long long)it->count);
                    return HCCL_E_NOT_SUPPORT;
                }
                MPI_Datatype it_t = aclrt_hccl_mpi_type(it->dataType);
                what = send ? "MPI_Isend" : "MPI_Irecv";
                rc = send ? MPI_Isend(it->buf, (int)it->count, it_t, (int)it->remoteRank, ACLRT_HCCL_MPI_P2P_TAG, comm,
                                      &r->r[i])
                          : MPI_Irecv(it->buf, (int)it->count, it_t, (int)it->remoteRank, ACLRT_HCCL_MPI_P2P_TAG, comm,
                                      &r->r[i]);
            }
        }
        break;
    }
    if (r == NULL) {
        snprintf(msg, ACLRT_HCCL_MSG, "out of memory for an MPI request");
        return HCCL_E_MEMORY;
    }
    if (rc != MPI_SUCCESS) {
        /* Requests already started (a batch) cannot be recalled: leave them, keep their memory. */
        return aclrt_hccl_mpi_err(rc, what, msg);
    }
    *out = r;
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_mpi_test(void *req, int *done, char *msg)
{
    struct aclrt_hccl_mpi_req *r = (struct aclrt_hccl_mpi_req *)req;
    int rc = MPI_Testall(r->n, r->r, done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        *done = 1;
        aclrt_hccl_mpi_req_free(r);
        return aclrt_hccl_mpi_err(rc, "MPI_Testall", msg);
    }
    if (*done)
        aclrt_hccl_mpi_req_free(r);
    return HCCL_SUCCESS;
}

static void aclrt_hccl_mpi_abandon(void *req)
{
    /* The buffers of a started operation stay MPI's until it completes: nothing is freed. */
    (void)req;
}

static void aclrt_hccl_mpi_finalize(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (aclrt_hccl_mpi_self_init && !finalized)
        MPI_Finalize();
    aclrt_hccl_mpi_self_init = 0;
}

static const struct aclrt_hccl_mpi aclrt_hccl_mpi_table = {
    .version = ACLRT_HCCL_MPI_ABI_VERSION,
    .init = aclrt_hccl_mpi_init,
    .post = aclrt_hccl_mpi_post,
    .take = aclrt_hccl_mpi_take,
    .comm_create = aclrt_hccl_mpi_comm_create,
    .comm_free = aclrt_hccl_mpi_comm_free,
    .start = aclrt_hccl_mpi_start,
    .test = aclrt_hccl_mpi_test,
    .abandon = aclrt_hccl_mpi_abandon,
    .finalize = aclrt_hccl_mpi_finalize,
};

#endif /* ACLRT_IMPL_HCCL_HCCL_MPI_H */
