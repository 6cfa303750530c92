/*
 * tests/hccl/test_hccl_mpi.c - pins HCCL across processes (docs/HCCL.md),
 * run by `mpirun -np 4`: one rank per process, communicators made from a
 * root info sent with MPI_Bcast as HCCL's programs do; every collective on
 * several data types against a reference; two communicators of disjoint
 * halves made at the same time from separate root infos, and a
 * sub-communicator of a parent; sends pairing in order, a ring as a batch
 * and as a group; stream order with an event; a captured model replayed; a
 * rank that never calls (the others fail within HCCL_EXEC_TIMEOUT, no hang,
 * the runtime goes on).
 *
 * HCCL_KILL_RANK=r: rank r kills itself in the middle of an allreduce; the
 * job must end (mpirun reports the death) rather than hang.
 *
 * Built on the cuda backend too (mk/hccl.mk: test_hccl_mpi_cuda*), through
 * the test doubles of the CUDA driver and NCCL: there HCCL runs through
 * NCCL, and what NCCL does not do is said and skipped (16-bit integer
 * reductions, a captured model) or its refusal checked (a sub-communicator
 * across processes).
 */
#define _POSIX_C_SOURCE 200809L

#include "../check.h"
#include "../hccl_ref.h"
#include "hccl/hccl.h"

#include <mpi.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#define COUNT 1031 /* elements: more than one reduction block for 8-byte types */

static int me, nproc;
static HcclComm world;
static aclrtStream stream;
static bool engine; /* the backend runs HCCL through its engine (the cuda backend: NCCL) */

/* NCCL reduces no 16-bit integers: through it their reductions are refused at the call. */
static bool engine_refuses(HcclDataType t)
{
    return engine && (t == HCCL_DATA_TYPE_INT16 || t == HCCL_DATA_TYPE_UINT16);
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* A communicator of `n` ranks of MPI communicator `mc`: its rank 0 makes the root info. */
static HcclResult make_comm(MPI_Comm mc, HcclComm *out)
{
    int r, n;
    MPI_Comm_rank(mc, &r);
    MPI_Comm_size(mc, &n);
    HcclRootInfo root;
    if (r == 0 && HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return HCCL_E_INTERNAL;
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, mc);
    return HcclCommInitRootInfo((uint32_t)n, &root, (uint32_t)r, out);
}

TEST(every_collective_gives_the_reference_across_processes)
{
    static const HcclDataType types[] = {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_BFP16,
                                         HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT16,
                                         HCCL_DATA_TYPE_FP64, HCCL_DATA_TYPE_INT128};
    static const HcclReduceOp ops[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};
    int n = nproc;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        HcclDataType t = types[ti];
        size_t es = type_size(t);
        void *send = dev_alloc((size_t)n * COUNT * es), *recv = dev_alloc((size_t)n * COUNT * es);
        void *bc = dev_alloc(COUNT * es), *sc = dev_alloc(COUNT * es), *a2a = dev_alloc((size_t)n * COUNT * es);
        void *red[4], *rs = dev_alloc(COUNT * es);
        for (size_t i = 0; i < (size_t)n * COUNT; i++)
            put(t, send, i, val(me, i));
        for (size_t i = 0; i < COUNT; i++)
            put(t, bc, i, me == 1 ? val(9, i) : 0);
        bool reduces = reducible(t) && !engine_refuses(t);
        if (engine_refuses(t))
            CHECK_EQ(HCCL_E_NOT_SUPPORT, HcclAllReduce(send, recv, COUNT, t, HCCL_REDUCE_SUM, world, stream));
        if (reduces) {
            for (int o = 0; o < 4; o++) {
                red[o] = dev_alloc(COUNT * es);
                CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(send, red[o], COUNT, t, ops[o], world, stream));
            }
            CHECK_EQ(HCCL_SUCCESS, HcclReduceScatter(send, rs, COUNT, t, HCCL_REDUCE_SUM, world, stream));
        }
        CHECK_EQ(HCCL_SUCCESS, HcclBroadcast(bc, COUNT, t, 1, world, stream));
        CHECK_EQ(HCCL_SUCCESS, HcclAllGather(send, recv, COUNT, t, world, stream));
        CHECK_EQ(HCCL_SUCCESS, HcclScatter(send, sc, COUNT, t, 2 % n, world, stream));
        CHECK_EQ(HCCL_SUCCESS, HcclAlltoAll(send, COUNT, t, a2a, COUNT, t, world, stream));
        CHECK_OK(aclrtSynchronizeStream(stream));
        for (size_t i = 0; i < COUNT; i++) {
            if (reduces) {
                for (int o = 0; o < 4; o++)
                    CHECK_EQ(as_type(t, ref_reduce(ops[o], i, n)), get(t, red[o], i));
                CHECK_EQ(as_type(t, ref_reduce(HCCL_REDUCE_SUM, (size_t)me * COUNT + i, n)), get(t, rs, i));
            }
            CHECK_EQ(as_type(t, val(9, i)), get(t, bc, i));
            CHECK_EQ(as_type(t, val(2 % n, (size_t)me * COUNT + i)), get(t, sc, i));
            for (int s = 0; s < n; s++) {
                CHECK_EQ(as_type(t, val(s, i)), get(t, recv, (size_t)s * COUNT + i));
                CHECK_EQ(as_type(t, val(s, (size_t)me * COUNT + i)), get(t, a2a, (size_t)s * COUNT + i));
            }
        }
        if (reduces)
            for (int o = 0; o < 4; o++)
                CHECK_OK(aclrtFree(red[o]));
        void *all[] = {send, recv, bc, sc, a2a, rs};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            CHECK_OK(aclrtFree(all[k]));
    }
}

TEST(v_collectives_route_every_count)
{
    int n = nproc;
    uint64_t counts[8], displs[8], m[8][8];
    uint64_t off = 0;
    for (int s = 0; s < n; s++) {
        counts[s] = (uint64_t)(s * 3 + 1), displs[s] = off + 1, off += counts[s] + 1;
        for (int d = 0; d < n; d++)
            m[s][d] = (uint64_t)((s + 2 * d) % 3);
    }
    int32_t *send = (int32_t *)dev_alloc(off * 4), *agv = (int32_t *)dev_alloc(off * 4);
    int32_t *rsv = (int32_t *)dev_alloc(counts[me] * 4), *vc_in = (int32_t *)dev_alloc(64 * 4),
            *vc_out = (int32_t *)dev_alloc(64 * 4);
    uint64_t flat[64];
    for (uint64_t i = 0; i < off; i++)
        send[i] = 100 * me + (int32_t)i;
    for (int s = 0; s < n; s++)
        for (int d = 0; d < n; d++)
            flat[s * n + d] = m[s][d];
    for (int i = 0; i < 64; i++)
        vc_in[i] = 1000 * me + i;
    CHECK_EQ(HCCL_SUCCESS, HcclAllGatherV(send, counts[me], agv, counts, displs, HCCL_DATA_TYPE_INT32, world, stream));
    CHECK_EQ(HCCL_SUCCESS, HcclReduceScatterV(send, counts, displs, rsv, counts[me], HCCL_DATA_TYPE_INT32,
                                              HCCL_REDUCE_SUM, world, stream));
    CHECK_EQ(HCCL_SUCCESS, HcclAlltoAllVC(vc_in, flat, HCCL_DATA_TYPE_INT32, vc_out, HCCL_DATA_TYPE_INT32, world, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    for (int s = 0; s < n; s++)
        for (uint64_t i = 0; i < counts[s]; i++)
            CHECK_EQ(100 * s + (int32_t)i, agv[displs[s] + i]);
    for (uint64_t i = 0; i < counts[me]; i++) {
        long sum = 0;
        for (int s = 0; s < n; s++)
            sum += 100 * s + (long)(displs[me] + i);
        CHECK_EQ(sum, rsv[i]);
    }
    uint64_t at = 0;
    for (int s = 0; s < n; s++) {
        uint64_t sd = 0;
        for (int d = 0; d < me; d++)
            sd += m[s][d];
        for (uint64_t k = 0; k < m[s][me]; k++)
            CHECK_EQ(1000 * s + (int32_t)(sd + k), vc_out[at + k]);
        at += m[s][me];
    }
    void *all[] = {send, agv, rsv, vc_in, vc_out};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        CHECK_OK(aclrtFree(all[k]));
}

TEST(sends_pair_in_order_and_a_ring_runs_as_a_batch_and_a_group)
{
    int n = nproc, next = (me + 1) % n, prev = (me + n - 1) % n;
    int32_t *out = (int32_t *)dev_alloc(COUNT * 4), *in = (int32_t *)dev_alloc(COUNT * 4),
            *in2 = (int32_t *)dev_alloc(COUNT * 4), *seq = (int32_t *)dev_alloc(3 * 4);
    for (int i = 0; i < COUNT; i++)
        out[i] = 1000 * me + i;
    HcclSendRecvItem items[2] = {
        {.sendRecvType = HCCL_SEND, .buf = out, .count = COUNT, .dataType = HCCL_DATA_TYPE_INT32,
         .remoteRank = (uint32_t)next},
        {.sendRecvType = HCCL_RECV, .buf = in, .count = COUNT, .dataType = HCCL_DATA_TYPE_INT32,
         .remoteRank = (uint32_t)prev}};
    CHECK_EQ(HCCL_SUCCESS, HcclBatchSendRecv(items, 2, world, stream));
    CHECK_EQ(HCCL_SUCCESS, HcclGroupStart());
    CHECK_EQ(HCCL_SUCCESS, HcclRecv(in2, COUNT, HCCL_DATA_TYPE_INT32, (uint32_t)prev, world, stream));
    CHECK_EQ(HCCL_SUCCESS, HcclSend(out, COUNT, HCCL_DATA_TYPE_INT32, (uint32_t)next, world, stream));
    CHECK_EQ(HCCL_SUCCESS, HcclGroupEnd());
    /* Three messages from rank 0 to rank n-1 arrive in the order they were sent. */
    int32_t *vals = (int32_t *)dev_alloc(3 * 4); /* device memory: through NCCL a buffer must be */
    for (int k = 0; k < 3; k++)
        vals[k] = 11 * (k + 1);
    for (int k = 0; k < 3; k++) {
        if (me == 0)
            CHECK_EQ(HCCL_SUCCESS, HcclSend(&vals[k], 1, HCCL_DATA_TYPE_INT32, (uint32_t)(n - 1), world, stream));
        if (me == n - 1)
            CHECK_EQ(HCCL_SUCCESS, HcclRecv(&seq[k], 1, HCCL_DATA_TYPE_INT32, 0, world, stream));
    }
    CHECK_OK(aclrtSynchronizeStream(stream));
    for (int i = 0; i < COUNT; i++) {
        CHECK_EQ(1000 * prev + i, in[i]);
        CHECK_EQ(1000 * prev + i, in2[i]);
    }
    if (me == n - 1)
        for (int k = 0; k < 3; k++)
            CHECK_EQ(vals[k], seq[k]);
    void *all[] = {out, in, in2, seq, vals};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        CHECK_OK(aclrtFree(all[k]));
}

TEST(halves_made_at_once_from_two_root_infos_and_a_sub_communicator_are_independent)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    HcclComm hc = NULL;
    CHECK_EQ(HCCL_SUCCESS, make_comm(half, &hc));
    uint32_t size = 0;
    CHECK_EQ(HCCL_SUCCESS, HcclGetRankSize(hc, &size));
    CHECK_EQ((nproc + 1 - me % 2) / 2, size);
    int64_t *b = (int64_t *)dev_alloc(8);
    *b = me;
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, 1, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM, hc, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    long want = 0;
    for (int r = me % 2; r < nproc; r += 2)
        want += r;
    CHECK_EQ(want, *b);
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(hc));
    MPI_Comm_free(&half);

    /*
     * Ranks 1 and n-1 of the world, as a sub-communicator: rank n-1 is its
     * rank 0 (through NCCL it passes the new communicator's id to rank 1
     * over the world communicator; the other ranks do not call).
     */
    uint32_t ids[2] = {(uint32_t)nproc - 1, 1};
    if (me == 1 || me == nproc - 1) {
        HcclComm sub = NULL;
        HcclCommConfig cfg;
        HcclCommConfigInit(&cfg);
        snprintf(cfg.hcclCommName, sizeof cfg.hcclCommName, "pair");
        CHECK_EQ(HCCL_SUCCESS, HcclCreateSubCommConfig(&world, 2, ids, 7, me == 1 ? 1 : 0, &cfg, &sub));
        char name[COMM_NAME_MAX_LENGTH];
        CHECK_EQ(HCCL_SUCCESS, HcclGetCommName(sub, name));
        CHECK_EQ(0, strcmp(name, "pair"));
        *b = me;
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, 1, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_MAX, sub, stream));
        CHECK_OK(aclrtSynchronizeStream(stream));
        CHECK_EQ(nproc - 1, *b);
        CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(sub));
    }
    CHECK_OK(aclrtFree(b));
}

static void fill_fn(void *arg)
{
    *(int32_t *)arg = 5;
}

TEST(an_operation_waits_for_an_event_and_later_tasks_wait_for_it)
{
    aclrtStream side;
    aclrtEvent ev, done;
    CHECK_OK(aclrtCreateStream(&side));
    CHECK_OK(aclrtCreateEvent(&ev));
    CHECK_OK(aclrtCreateEvent(&done));
    int32_t *in = (int32_t *)dev_alloc(4), *out = (int32_t *)dev_alloc(4), *copy = (int32_t *)dev_alloc(4);
    CHECK_OK(aclrtLaunchHostFunc(side, fill_fn, in));
    CHECK_OK(aclrtRecordEvent(ev, side));
    CHECK_OK(aclrtStreamWaitEvent(stream, ev));
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(in, out, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, world, stream));
    CHECK_OK(aclrtMemcpyAsync(copy, 4, out, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
    CHECK_OK(aclrtRecordEvent(done, stream));
    CHECK_OK(aclrtSynchronizeEvent(done));
    CHECK_EQ(5 * nproc, *copy);
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyEvent(done));
    CHECK_OK(aclrtDestroyStream(side));
    void *all[] = {in, out, copy};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        CHECK_OK(aclrtFree(all[k]));
}

TEST(a_captured_broadcast_and_allreduce_run_at_every_replay)
{
    int32_t *b = (int32_t *)dev_alloc(COUNT * 4);
    for (int i = 0; i < COUNT; i++)
        b[i] = me == 0 ? 1 : 0;
    aclmdlRI model;
    CHECK_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_EQ(HCCL_SUCCESS, HcclBroadcast(b, COUNT, HCCL_DATA_TYPE_INT32, 0, world, stream));
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, world, stream));
    CHECK_OK(aclmdlRICaptureEnd(stream, &model));
    for (int k = 0; k < 2; k++)
        CHECK_OK(aclmdlRIExecuteAsync(model, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    for (int i = 0; i < COUNT; i++)
        CHECK_EQ(nproc * nproc, b[i]); /* 1 -> n, then rank 0's n to all -> n * n */
    CHECK_OK(aclmdlRIDestroy(model));
    CHECK_OK(aclrtFree(b));
}

TEST(bad_input_across_processes_gets_hccl_codes)
{
    int32_t *b = (int32_t *)dev_alloc(16);
    CHECK_EQ(HCCL_E_PARA, HcclBroadcast(b, 1, HCCL_DATA_TYPE_INT32, (uint32_t)nproc, world, stream));
    CHECK_EQ(HCCL_E_PARA, HcclRecv(b, 1, HCCL_DATA_TYPE_INT32, 99, world, stream));
    CHECK_EQ(HCCL_E_NOT_SUPPORT, HcclAllReduce(b, b, 1, HCCL_DATA_TYPE_FP8E5M2, HCCL_REDUCE_SUM, world, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_OK(aclrtFree(b));
}

static _Atomic int exceptions;
static void on_exception(aclrtExceptionInfo *info)
{
    (void)info;
    atomic_fetch_add(&exceptions, 1);
}

/* Last: it leaves a communicator broken (its MPI operation can never complete). */
TEST(a_rank_that_never_calls_fails_the_others_within_the_exec_timeout)
{
    setenv("HCCL_EXEC_TIMEOUT", "2", 1);
    HcclComm c = NULL;
    CHECK_EQ(HCCL_SUCCESS, make_comm(MPI_COMM_WORLD, &c));
    unsetenv("HCCL_EXEC_TIMEOUT");
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    int32_t *b = (int32_t *)dev_alloc(4);
    if (me != nproc - 1) {
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, c, s));
        CHECK(aclrtSynchronizeStream(s) != ACL_SUCCESS);
        HcclResult async = HCCL_SUCCESS;
        CHECK_EQ(HCCL_SUCCESS, HcclGetCommAsyncError(c, &async));
        CHECK_EQ(HCCL_E_TIMEOUT, async);
        CHECK_EQ(1, atomic_load(&exceptions));
    }
    /* The runtime goes on: the other streams and the other communicator work. */
    *b = 1;
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, world, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(nproc, *b);
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_OK(aclrtFree(b));
}

static void killed_mid_operation(void)
{
    int kill_rank = atoi(getenv("HCCL_KILL_RANK"));
    int32_t *b = (int32_t *)dev_alloc(4 << 20);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, 1 << 20, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, world, stream));
    if (me == kill_rank)
        raise(SIGKILL);
    aclrtSynchronizeStream(stream);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    /* The cuda backend's test doubles: the cases put and get values of device memory with the CPU. */
    setenv("ACLRT_FAKE_CUDA_HOST_ACCESS", "1", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS ||
        make_comm(MPI_COMM_WORLD, &world) != HCCL_SUCCESS) {
        fprintf(stderr, "hccl-mpi rank %d: cannot start: %s\n", me, aclGetRecentErrMsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *backend = aclrtxGetBackendName();
    engine = backend != NULL && strcmp(backend, "cuda") == 0;
    if (getenv("HCCL_KILL_RANK") != NULL) {
        killed_mid_operation();
        MPI_Finalize();
        return 0;
    }
    RUN(every_collective_gives_the_reference_across_processes);
    RUN(v_collectives_route_every_count);
    RUN(sends_pair_in_order_and_a_ring_runs_as_a_batch_and_a_group);
    RUN(halves_made_at_once_from_two_root_infos_and_a_sub_communicator_are_independent);
    RUN(an_operation_waits_for_an_event_and_later_tasks_wait_for_it);
    RUN(a_captured_broadcast_and_allreduce_run_at_every_replay);
    RUN(bad_input_across_processes_gets_hccl_codes);
    RUN(a_rank_that_never_calls_fails_the_others_within_the_exec_timeout);
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(world));
    aclrtDestroyStream(stream);
    aclFinalize();
    char suite[32];
    snprintf(suite, sizeof suite, "hccl-mpi rank %d", me);
    int rc = check_report(suite);
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
