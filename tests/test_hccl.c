/*
 * tests/test_hccl.c - pins HCCL in one process (docs/HCCL.md): every
 * collective and every data type against a reference, on 4 ranks made by
 * HcclCommInitAll and by 4 threads sharing one root info; operations ordered
 * on their streams with events and other streams; sends and receives pairing
 * in order, batches and groups; sub-communicators; the barrier holding every
 * stream until the last rank arrives; a rank that never comes (the others
 * fail within HCCL_EXEC_TIMEOUT, their streams take the failure and the
 * runtime goes on); a rendezvous that never completes (HCCL_CONNECT_TIMEOUT);
 * ranks that disagree; bad input (HCCL's codes and a message); the queries
 * and the bookkeeping calls.
 *
 * One thread can drive every rank: an HCCL call enqueues and returns. The
 * waits are on streams (aclrtSynchronizeStream), never sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"
#include "hccl/hccl.h"
#include "hccl_ref.h"

#include <pthread.h>
#include <time.h>

#define RANKS 4
#define COUNT 37 /* elements per rank's block: odd, to catch a block boundary */

static HcclComm comms[RANKS];
static aclrtStream streams[RANKS];
static int32_t devices[RANKS] = {0, 1, 2, 3};
static bool engine; /* the backend runs HCCL through its engine (the cuda backend: NCCL) */

/* NCCL reduces no 16-bit integers: through it their reductions are refused at the call, on every rank. */
static bool engine_refuses(HcclDataType t)
{
    return engine && (t == HCCL_DATA_TYPE_INT16 || t == HCCL_DATA_TYPE_UINT16);
}

static void on_rank(int r)
{
    CHECK_OK(aclrtSetDevice(devices[r]));
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST));
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

static void sync_all(void)
{
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_OK(aclrtSynchronizeStream(streams[r]));
    }
}

/* ---- every collective, every type ---- */

TEST(allreduce_and_reduce_give_the_reference_for_every_type_and_operation)
{
    static const HcclReduceOp ops[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};
    for (size_t ti = 0; ti < NTYPES; ti++) {
        HcclDataType t = all_types[ti];
        if (!reducible(t))
            continue;
        if (engine_refuses(t)) {
            void *b = dev_alloc(COUNT * type_size(t));
            on_rank(0);
            CHECK_EQ(HCCL_E_NOT_SUPPORT, HcclAllReduce(b, b, COUNT, t, HCCL_REDUCE_SUM, comms[0], streams[0]));
            CHECK(strstr(aclGetRecentErrMsg(), "no reduction of data type") != NULL);
            CHECK_OK(aclrtFree(b));
            continue;
        }
        for (size_t oi = 0; oi < 4; oi++) {
            void *send[RANKS], *recv[RANKS], *red[RANKS];
            for (int r = 0; r < RANKS; r++) {
                send[r] = dev_alloc(COUNT * type_size(t));
                recv[r] = dev_alloc(COUNT * type_size(t));
                red[r] = dev_alloc(COUNT * type_size(t));
                for (size_t i = 0; i < COUNT; i++)
                    put(t, send[r], i, val(r, i));
            }
            for (int r = 0; r < RANKS; r++) {
                on_rank(r);
                CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(send[r], recv[r], COUNT, t, ops[oi], comms[r], streams[r]));
                CHECK_EQ(HCCL_SUCCESS, HcclReduce(send[r], red[r], COUNT, t, ops[oi], 2, comms[r], streams[r]));
            }
            sync_all();
            for (int r = 0; r < RANKS; r++)
                for (size_t i = 0; i < COUNT; i++) {
                    CHECK_EQ(as_type(t, ref_reduce(ops[oi], i, RANKS)), get(t, recv[r], i));
                    CHECK_EQ(r == 2 ? as_type(t, ref_reduce(ops[oi], i, RANKS)) : 0, get(t, red[r], i));
                }
            for (int r = 0; r < RANKS; r++) {
                CHECK_OK(aclrtFree(send[r]));
                CHECK_OK(aclrtFree(recv[r]));
                CHECK_OK(aclrtFree(red[r]));
            }
        }
    }
}

TEST(reduce_scatter_and_its_v_form_give_each_rank_its_reduced_block)
{
    uint64_t counts[RANKS] = {3, 0, 5, 2}, displs[RANKS] = {0, 4, 4, 10}; /* a gap at 3, and at 9 */
    for (size_t ti = 0; ti < NTYPES; ti++) {
        HcclDataType t = all_types[ti];
        if (!reducible(t) || engine_refuses(t))
            continue;
        size_t es = type_size(t);
        void *send[RANKS], *recv[RANKS], *vrecv[RANKS];
        for (int r = 0; r < RANKS; r++) {
            send[r] = dev_alloc(RANKS * COUNT * es);
            recv[r] = dev_alloc(COUNT * es);
            vrecv[r] = dev_alloc(8 * es);
            for (size_t i = 0; i < RANKS * COUNT; i++)
                put(t, send[r], i, val(r, i));
        }
        for (int r = 0; r < RANKS; r++) {
            on_rank(r);
            CHECK_EQ(HCCL_SUCCESS, HcclReduceScatter(send[r], recv[r], COUNT, t, HCCL_REDUCE_SUM, comms[r], streams[r]));
            CHECK_EQ(HCCL_SUCCESS, HcclReduceScatterV(send[r], counts, displs, vrecv[r], counts[r], t, HCCL_REDUCE_MAX,
                                                      comms[r], streams[r]));
        }
        sync_all();
        for (int r = 0; r < RANKS; r++) {
            for (size_t i = 0; i < COUNT; i++)
                CHECK_EQ(as_type(t, ref_reduce(HCCL_REDUCE_SUM, r * COUNT + i, RANKS)), get(t, recv[r], i));
            for (size_t i = 0; i < counts[r]; i++)
                CHECK_EQ(as_type(t, ref_reduce(HCCL_REDUCE_MAX, displs[r] + i, RANKS)), get(t, vrecv[r], i));
        }
        for (int r = 0; r < RANKS; r++) {
            CHECK_OK(aclrtFree(send[r]));
            CHECK_OK(aclrtFree(recv[r]));
            CHECK_OK(aclrtFree(vrecv[r]));
        }
    }
}

TEST(data_movement_collectives_give_the_reference_for_every_type)
{
    uint64_t gv_counts[RANKS] = {2, 0, 4, 1}, gv_displs[RANKS] = {7, 0, 1, 5};
    for (size_t ti = 0; ti < NTYPES; ti++) {
        HcclDataType t = all_types[ti];
        size_t es = type_size(t);
        void *bc[RANKS], *ag[RANKS], *agv[RANKS], *sc[RANKS], *a2a_s[RANKS], *a2a_r[RANKS], *mine[RANKS];
        for (int r = 0; r < RANKS; r++) {
            bc[r] = dev_alloc(COUNT * es);
            mine[r] = dev_alloc(RANKS * COUNT * es);
            ag[r] = dev_alloc(RANKS * COUNT * es);
            agv[r] = dev_alloc(8 * es);
            sc[r] = dev_alloc(COUNT * es);
            a2a_s[r] = dev_alloc(RANKS * COUNT * es);
            a2a_r[r] = dev_alloc(RANKS * COUNT * es);
            for (size_t i = 0; i < COUNT; i++)
                put(t, bc[r], i, r == 1 ? val(9, i) : 0);
            for (size_t i = 0; i < RANKS * COUNT; i++) {
                put(t, mine[r], i, val(r, i));
                put(t, a2a_s[r], i, val(r, i) + 10 * r);
            }
        }
        for (int r = 0; r < RANKS; r++) {
            on_rank(r);
            CHECK_EQ(HCCL_SUCCESS, HcclBroadcast(bc[r], COUNT, t, 1, comms[r], streams[r]));
            CHECK_EQ(HCCL_SUCCESS, HcclAllGather(mine[r], ag[r], COUNT, t, comms[r], streams[r]));
            CHECK_EQ(HCCL_SUCCESS,
                     HcclAllGatherV(mine[r], gv_counts[r], agv[r], gv_counts, gv_displs, t, comms[r], streams[r]));
            CHECK_EQ(HCCL_SUCCESS, HcclScatter(mine[r], sc[r], COUNT, t, 3, comms[r], streams[r]));
            CHECK_EQ(HCCL_SUCCESS, HcclAlltoAll(a2a_s[r], COUNT, t, a2a_r[r], COUNT, t, comms[r], streams[r]));
        }
        sync_all();
        for (int r = 0; r < RANKS; r++) {
            for (size_t i = 0; i < COUNT; i++) {
                CHECK_EQ(as_type(t, val(9, i)), get(t, bc[r], i));
                CHECK_EQ(as_type(t, val(3, r * COUNT + i)), get(t, sc[r], i));
            }
            for (int s = 0; s < RANKS; s++)
                for (size_t i = 0; i < COUNT; i++) {
                    CHECK_EQ(as_type(t, val(s, i)), get(t, ag[r], s * COUNT + i));
                    /* block s of rank r's result is block r of rank s's input */
                    CHECK_EQ(as_type(t, val(s, r * COUNT + i) + 10 * s), get(t, a2a_r[r], s * COUNT + i));
                }
            for (int s = 0; s < RANKS; s++)
                for (size_t i = 0; i < gv_counts[s]; i++)
                    CHECK_EQ(as_type(t, val(s, i)), get(t, agv[r], gv_displs[s] + i));
        }
        for (int r = 0; r < RANKS; r++) {
            void *all[] = {bc[r], ag[r], agv[r], sc[r], a2a_s[r], a2a_r[r], mine[r]};
            for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
                CHECK_OK(aclrtFree(all[k]));
        }
    }
}

TEST(alltoallv_and_alltoallvc_route_every_count_to_its_place)
{
    HcclDataType t = HCCL_DATA_TYPE_INT32;
    /* m[i][j]: elements rank i sends to rank j. */
    uint64_t m[RANKS][RANKS] = {{1, 2, 0, 3}, {0, 1, 4, 1}, {2, 2, 2, 2}, {5, 0, 0, 1}};
    int32_t *send[RANKS], *recv_v[RANKS], *recv_vc[RANKS];
    uint64_t sc[RANKS][RANKS], sd[RANKS][RANKS], rc[RANKS][RANKS], rd[RANKS][RANKS];
    for (int i = 0; i < RANKS; i++) {
        uint64_t so = 0, ro = 0;
        for (int j = 0; j < RANKS; j++) {
            sc[i][j] = m[i][j], sd[i][j] = so, so += m[i][j];
            rc[i][j] = m[j][i], rd[i][j] = ro + 1, ro += m[j][i] + 1; /* receive with gaps */
        }
        send[i] = (int32_t *)dev_alloc(so * 4);
        recv_v[i] = (int32_t *)dev_alloc(ro * 4);
        recv_vc[i] = (int32_t *)dev_alloc(ro * 4);
        for (uint64_t k = 0; k < so; k++)
            send[i][k] = 1000 * i + (int32_t)k;
    }
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclAlltoAllV(send[r], sc[r], sd[r], t, recv_v[r], rc[r], rd[r], t, comms[r], streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclAlltoAllVC(send[r], m, t, recv_vc[r], t, comms[r], streams[r]));
    }
    sync_all();
    for (int j = 0; j < RANKS; j++) {
        uint64_t packed = 0;
        for (int i = 0; i < RANKS; i++)
            for (uint64_t k = 0; k < m[i][j]; k++) {
                int32_t want = 1000 * i + (int32_t)(sd[i][j] + k);
                CHECK_EQ(want, recv_v[j][rd[j][i] + k]);
                CHECK_EQ(want, recv_vc[j][packed + k]);
                if (k + 1 == m[i][j])
                    packed += m[i][j];
            }
    }
    for (int r = 0; r < RANKS; r++) {
        CHECK_OK(aclrtFree(send[r]));
        CHECK_OK(aclrtFree(recv_v[r]));
        CHECK_OK(aclrtFree(recv_vc[r]));
    }
}

TEST(in_place_allreduce_allgather_and_reduce_scatter_read_before_they_write)
{
    int32_t *buf[RANKS], *ag[RANKS], *rs[RANKS];
    for (int r = 0; r < RANKS; r++) {
        buf[r] = (int32_t *)dev_alloc(COUNT * 4);
        ag[r] = (int32_t *)dev_alloc(RANKS * COUNT * 4);
        rs[r] = (int32_t *)dev_alloc(RANKS * COUNT * 4);
        for (int i = 0; i < COUNT; i++)
            buf[r][i] = r + 1, ag[r][r * COUNT + i] = 100 * r + i;
        for (int i = 0; i < RANKS * COUNT; i++)
            rs[r][i] = i;
    }
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(buf[r], buf[r], COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comms[r],
                                             streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclAllGather(ag[r] + r * COUNT, ag[r], COUNT, HCCL_DATA_TYPE_INT32, comms[r], streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclReduceScatter(rs[r], rs[r], COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comms[r],
                                                 streams[r]));
    }
    sync_all();
    for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < COUNT; i++) {
            CHECK_EQ(10, buf[r][i]);
            for (int s = 0; s < RANKS; s++)
                CHECK_EQ(100 * s + i, ag[r][s * COUNT + i]);
            CHECK_EQ(RANKS * (r * COUNT + i), rs[r][i]);
        }
    for (int r = 0; r < RANKS; r++) {
        CHECK_OK(aclrtFree(buf[r]));
        CHECK_OK(aclrtFree(ag[r]));
        CHECK_OK(aclrtFree(rs[r]));
    }
}

/* ---- stream order ---- */

static void fill_fn(void *arg)
{
    int32_t *p = (int32_t *)arg;
    for (int i = 0; i < COUNT; i++)
        p[i] = 7;
}

TEST(an_operation_runs_in_stream_order_after_an_event_wait_and_before_later_tasks)
{
    int32_t *in[RANKS], *out[RANKS], *copy;
    aclrtStream side;
    on_rank(0);
    copy = (int32_t *)dev_alloc(COUNT * 4);
    CHECK_OK(aclrtCreateStream(&side));
    aclrtEvent written, done;
    CHECK_OK(aclrtCreateEvent(&written));
    CHECK_OK(aclrtCreateEvent(&done));
    for (int r = 0; r < RANKS; r++) {
        in[r] = (int32_t *)dev_alloc(COUNT * 4);
        out[r] = (int32_t *)dev_alloc(COUNT * 4);
        for (int i = 0; i < COUNT; i++)
            in[r][i] = 1;
    }
    /* Rank 0's input is written by a gated host function on another stream; its allreduce waits for that. */
    struct gate *g = launch_gate(side);
    CHECK_OK(aclrtLaunchHostFunc(side, fill_fn, in[0]));
    CHECK_OK(aclrtRecordEvent(written, side));
    CHECK_OK(aclrtStreamWaitEvent(streams[0], written));
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(in[r], out[r], COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comms[r],
                                             streams[r]));
    }
    on_rank(0);
    CHECK_OK(aclrtMemcpyAsync(copy, COUNT * 4, out[0], COUNT * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, streams[0]));
    CHECK_OK(aclrtRecordEvent(done, streams[0]));
    /* Nothing can finish while the gate holds rank 0's input: the collective needs every rank. */
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(done, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(done));
    for (int i = 0; i < COUNT; i++)
        CHECK_EQ(7 + 3, copy[i]);
    sync_all();
    for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < COUNT; i++)
            CHECK_EQ(10, out[r][i]);
    on_rank(0);
    CHECK_OK(aclrtDestroyEvent(written));
    CHECK_OK(aclrtDestroyEvent(done));
    CHECK_OK(aclrtDestroyStream(side));
    for (int r = 0; r < RANKS; r++) {
        CHECK_OK(aclrtFree(in[r]));
        CHECK_OK(aclrtFree(out[r]));
    }
    CHECK_OK(aclrtFree(copy));
}

TEST(the_barrier_holds_every_stream_until_the_last_rank_reaches_it)
{
    for (int r = 0; r < RANKS - 1; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclBarrier(comms[r], streams[r]));
    }
    for (int r = 0; r < RANKS - 1; r++) {
        aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
        on_rank(r);
        CHECK_OK(aclrtStreamQuery(streams[r], &st));
        CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st); /* it cannot complete: rank 3 has not called */
    }
    on_rank(RANKS - 1);
    CHECK_EQ(HCCL_SUCCESS, HcclBarrier(comms[RANKS - 1], streams[RANKS - 1]));
    sync_all();
}

TEST(a_captured_allreduce_runs_at_every_replay_of_the_model)
{
    int32_t *b[RANKS];
    aclmdlRI model[RANKS];
    for (int r = 0; r < RANKS; r++) {
        b[r] = (int32_t *)dev_alloc(COUNT * 4);
        for (int i = 0; i < COUNT; i++)
            b[r][i] = 1;
    }
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_OK(aclmdlRICaptureBegin(streams[r], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b[r], b[r], COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comms[r],
                                             streams[r]));
        CHECK_OK(aclmdlRICaptureEnd(streams[r], &model[r]));
    }
    sync_all();
    CHECK_EQ(1, b[0][0]); /* captured, not run */
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < RANKS; r++) {
            on_rank(r);
            CHECK_OK(aclmdlRIExecuteAsync(model[r], streams[r]));
        }
    sync_all();
    for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < COUNT; i++)
            CHECK_EQ(64, b[r][i]); /* 1 -> 4 -> 16 -> 64 */
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_OK(aclmdlRIDestroy(model[r]));
        CHECK_OK(aclrtFree(b[r]));
    }
}

/* ---- point to point ---- */

TEST(sends_and_receives_pair_in_the_order_they_were_issued)
{
    int32_t *msg[3], *got[3];
    for (int k = 0; k < 3; k++) {
        msg[k] = (int32_t *)dev_alloc(COUNT * 4);
        got[k] = (int32_t *)dev_alloc(COUNT * 4);
        for (int i = 0; i < COUNT; i++)
            msg[k][i] = 100 * k + i;
    }
    on_rank(2);
    for (int k = 0; k < 3; k++)
        CHECK_EQ(HCCL_SUCCESS, HcclRecv(got[k], COUNT, HCCL_DATA_TYPE_INT32, 0, comms[2], streams[2]));
    on_rank(0);
    for (int k = 0; k < 3; k++)
        CHECK_EQ(HCCL_SUCCESS, HcclSend(msg[k], COUNT, HCCL_DATA_TYPE_INT32, 2, comms[0], streams[0]));
    sync_all();
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < COUNT; i++)
            CHECK_EQ(100 * k + i, got[k][i]);
    for (int k = 0; k < 3; k++) {
        CHECK_OK(aclrtFree(msg[k]));
        CHECK_OK(aclrtFree(got[k]));
    }
}

TEST(a_ring_exchange_works_as_a_batch_and_as_a_group)
{
    int64_t *out[RANKS], *in[RANKS], *in2[RANKS];
    for (int r = 0; r < RANKS; r++) {
        out[r] = (int64_t *)dev_alloc(COUNT * 8);
        in[r] = (int64_t *)dev_alloc(COUNT * 8);
        in2[r] = (int64_t *)dev_alloc(COUNT * 8);
        for (int i = 0; i < COUNT; i++)
            out[r][i] = 1000 * r + i;
    }
    for (int r = 0; r < RANKS; r++) {
        HcclSendRecvItem items[2] = {
            {.sendRecvType = HCCL_SEND, .buf = out[r], .count = COUNT, .dataType = HCCL_DATA_TYPE_INT64,
             .remoteRank = (uint32_t)(r + 1) % RANKS},
            {.sendRecvType = HCCL_RECV, .buf = in[r], .count = COUNT, .dataType = HCCL_DATA_TYPE_INT64,
             .remoteRank = (uint32_t)(r + RANKS - 1) % RANKS}};
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclBatchSendRecv(items, 2, comms[r], streams[r]));
        /* The same exchange as a group: without it, every rank's send would wait for a receive behind it. */
        bool grouped = false;
        CHECK_EQ(HCCL_SUCCESS, HcclGroupStart());
        CHECK_EQ(HCCL_SUCCESS, HcclGroupStatusGet(&grouped));
        CHECK(grouped);
        CHECK_EQ(HCCL_SUCCESS, HcclSend(out[r], COUNT, HCCL_DATA_TYPE_INT64, (uint32_t)(r + 1) % RANKS, comms[r], streams[r]));
        CHECK_EQ(HCCL_SUCCESS,
                 HcclRecv(in2[r], COUNT, HCCL_DATA_TYPE_INT64, (uint32_t)(r + RANKS - 1) % RANKS, comms[r], streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclGroupEnd());
        CHECK_EQ(HCCL_SUCCESS, HcclGroupStatusGet(&grouped));
        CHECK(!grouped);
    }
    sync_all();
    for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < COUNT; i++) {
            CHECK_EQ(1000 * ((r + RANKS - 1) % RANKS) + i, in[r][i]);
            CHECK_EQ(1000 * ((r + RANKS - 1) % RANKS) + i, in2[r][i]);
        }
    for (int r = 0; r < RANKS; r++) {
        CHECK_OK(aclrtFree(out[r]));
        CHECK_OK(aclrtFree(in[r]));
        CHECK_OK(aclrtFree(in2[r]));
    }
}

TEST(one_thread_drives_every_rank_in_one_group_across_devices)
{
    int32_t *out[RANKS], *in[RANKS];
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        out[r] = (int32_t *)dev_alloc(COUNT * 4);
        in[r] = (int32_t *)dev_alloc(COUNT * 4);
        for (int i = 0; i < COUNT; i++)
            out[r][i] = 10 * r + i;
    }
    /* NCCL's idiom: one group, each rank's calls made with its device current. */
    CHECK_EQ(HCCL_SUCCESS, HcclGroupStart());
    for (int r = 0; r < RANKS; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclSend(out[r], COUNT, HCCL_DATA_TYPE_INT32, (uint32_t)(r + 1) % RANKS, comms[r],
                                        streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclRecv(in[r], COUNT, HCCL_DATA_TYPE_INT32, (uint32_t)(r + RANKS - 1) % RANKS, comms[r],
                                        streams[r]));
    }
    on_rank(1);
    CHECK_EQ(HCCL_SUCCESS, HcclGroupEnd());
    int32_t dev = -1;
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(1, dev); /* the caller's device is current again */
    sync_all();
    for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < COUNT; i++)
            CHECK_EQ(10 * ((r + RANKS - 1) % RANKS) + i, in[r][i]);
    for (int r = 0; r < RANKS; r++) {
        CHECK_OK(aclrtFree(out[r]));
        CHECK_OK(aclrtFree(in[r]));
    }
}

/* ---- communicators ---- */

struct sub_arg {
    uint32_t parent_rank, sub_rank;
    uint32_t *ids;
    HcclComm sub;
    HcclResult r;
};

static void *make_sub(void *p)
{
    struct sub_arg *a = (struct sub_arg *)p;
    HcclCommConfig cfg;
    HcclCommConfigInit(&cfg);
    a->r = HcclCreateSubCommConfig(&comms[a->parent_rank], 2, a->ids, 42, a->sub_rank, &cfg, &a->sub);
    return NULL;
}

TEST(a_sub_communicator_of_two_ranks_reduces_over_its_members_only)
{
    uint32_t ids[2] = {3, 1}; /* parent rank 3 is the sub-communicator's rank 0 */
    struct sub_arg a[2] = {{3, 0, ids, NULL, HCCL_E_INTERNAL}, {1, 1, ids, NULL, HCCL_E_INTERNAL}};
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        CHECK_EQ(0, pthread_create(&th[k], NULL, make_sub, &a[k]));
    for (int k = 0; k < 2; k++)
        CHECK_EQ(0, pthread_join(th[k], NULL));
    CHECK_EQ(HCCL_SUCCESS, a[0].r);
    CHECK_EQ(HCCL_SUCCESS, a[1].r);
    uint32_t size = 0, id = 9;
    CHECK_EQ(HCCL_SUCCESS, HcclGetRankSize(a[1].sub, &size));
    CHECK_EQ(HCCL_SUCCESS, HcclGetRankId(a[1].sub, &id));
    CHECK_EQ(2, size);
    CHECK_EQ(1, id);
    int32_t *b[2];
    for (int k = 0; k < 2; k++) {
        b[k] = (int32_t *)dev_alloc(COUNT * 4);
        for (int i = 0; i < COUNT; i++)
            b[k][i] = (int32_t)a[k].parent_rank * 10 + i;
    }
    for (int k = 0; k < 2; k++) {
        on_rank((int)a[k].parent_rank);
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b[k], b[k], COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, a[k].sub,
                                             streams[a[k].parent_rank]));
    }
    sync_all();
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < COUNT; i++)
            CHECK_EQ(40 + 2 * i, b[k][i]);
    for (int k = 0; k < 2; k++) {
        CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(a[k].sub));
        CHECK_OK(aclrtFree(b[k]));
    }
}

/* Four threads, one rank each, sharing one root info (HCCL's own examples do this). */
struct thread_rank {
    int rank;
    HcclRootInfo *root;
    HcclResult init, op;
    aclError sync;
    int32_t result;
};

static void *thread_rank_main(void *p)
{
    struct thread_rank *t = (struct thread_rank *)p;
    HcclComm c = NULL;
    aclrtStream s = NULL;
    int32_t *buf = NULL;
    /* The rank's device first, as HCCL's samples do: a communicator lives on the device current at its making. */
    if (aclrtSetDevice(devices[t->rank]) != ACL_SUCCESS)
        return NULL;
    t->init = HcclCommInitRootInfo(RANKS, t->root, (uint32_t)t->rank, &c);
    if (t->init != HCCL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS ||
        aclrtMalloc((void **)&buf, 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return NULL;
    *buf = t->rank + 1;
    t->op = HcclAllReduce(buf, buf, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_PROD, c, s);
    t->sync = aclrtSynchronizeStream(s);
    t->result = *buf;
    aclrtFree(buf);
    aclrtDestroyStream(s);
    HcclCommDestroy(c);
    return NULL;
}

TEST(threads_sharing_one_root_info_make_one_communicator)
{
    HcclRootInfo root;
    CHECK_EQ(HCCL_SUCCESS, HcclGetRootInfo(&root));
    struct thread_rank t[RANKS];
    pthread_t th[RANKS];
    for (int r = 0; r < RANKS; r++) {
        t[r] = (struct thread_rank){.rank = r, .root = &root, .init = HCCL_E_INTERNAL, .op = HCCL_E_INTERNAL,
                                    .sync = -1, .result = 0};
        CHECK_EQ(0, pthread_create(&th[r], NULL, thread_rank_main, &t[r]));
    }
    for (int r = 0; r < RANKS; r++)
        CHECK_EQ(0, pthread_join(th[r], NULL));
    for (int r = 0; r < RANKS; r++) {
        CHECK_EQ(HCCL_SUCCESS, t[r].init);
        CHECK_EQ(HCCL_SUCCESS, t[r].op);
        CHECK_OK(t[r].sync);
        CHECK_EQ(24, t[r].result);
    }
}

/* ---- failures ---- */

static _Atomic int exceptions_seen;
static void on_exception(aclrtExceptionInfo *info)
{
    (void)info;
    atomic_fetch_add(&exceptions_seen, 1);
}

TEST(a_rank_that_never_comes_fails_the_others_within_the_exec_timeout)
{
    setenv("HCCL_EXEC_TIMEOUT", "1", 1);
    HcclComm two[2];
    int32_t devs[2] = {0, 1};
    CHECK_EQ(HCCL_SUCCESS, HcclCommInitAll(2, devs, two));
    unsetenv("HCCL_EXEC_TIMEOUT");
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    int32_t *b = (int32_t *)dev_alloc(COUNT * 4);
    on_rank(0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&exceptions_seen, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, two[0], s));
    /* Rank 1 never calls: rank 0's stream fails like a task that faulted, no hang. */
    aclError rc = aclrtSynchronizeStream(s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(rc != ACL_SUCCESS);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(waited < 30.0);
    HcclResult async = HCCL_SUCCESS;
    CHECK_EQ(HCCL_SUCCESS, HcclGetCommAsyncError(two[0], &async));
    CHECK_EQ(HCCL_E_TIMEOUT, async);
    CHECK_EQ(1, atomic_load(&exceptions_seen));
    /* The communicator is broken from then on; the runtime is not. */
    CHECK_EQ(HCCL_E_TIMEOUT, HcclAllReduce(b, b, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, two[0], streams[0]));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "HCCL_EXEC_TIMEOUT");
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtMemsetAsync(b, 4, 0, 4, streams[0]));
    CHECK_OK(aclrtSynchronizeStream(streams[0]));
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(two[0]));
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(two[1]));
    CHECK_OK(aclrtFree(b));
}

TEST(a_rendezvous_that_never_completes_fails_within_the_connect_timeout)
{
    setenv("HCCL_CONNECT_TIMEOUT", "1", 1);
    HcclRootInfo root;
    CHECK_EQ(HCCL_SUCCESS, HcclGetRootInfo(&root));
    HcclComm c = NULL;
    CHECK_EQ(HCCL_E_TIMEOUT, HcclCommInitRootInfo(2, &root, 0, &c));
    unsetenv("HCCL_CONNECT_TIMEOUT");
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "HCCL_CONNECT_TIMEOUT");
    CHECK(c == NULL);
}

TEST(ranks_that_disagree_fail_the_collective_and_break_the_communicator)
{
    HcclComm two[2];
    int32_t devs[2] = {2, 3};
    CHECK_EQ(HCCL_SUCCESS, HcclCommInitAll(2, devs, two));
    int32_t *b = (int32_t *)dev_alloc(COUNT * 4), *b3 = (int32_t *)dev_alloc(COUNT * 4); /* a buffer per rank */
    on_rank(2);
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b, b, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, two[0], streams[2]));
    on_rank(3);
    CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(b3, b3, COUNT - 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, two[1], streams[3]));
    on_rank(2);
    CHECK(aclrtSynchronizeStream(streams[2]) != ACL_SUCCESS);
    on_rank(3);
    CHECK(aclrtSynchronizeStream(streams[3]) != ACL_SUCCESS);
    HcclResult async = HCCL_SUCCESS;
    CHECK_EQ(HCCL_SUCCESS, HcclGetCommAsyncError(two[1], &async));
    CHECK_EQ(HCCL_E_PARA, async);
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(two[0]));
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(two[1]));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtFree(b3));
    /* The streams took a failure; they work again after it is read. */
    for (int r = 2; r < 4; r++) {
        on_rank(r);
        CHECK_OK(aclrtDestroyStream(streams[r]));
        CHECK_OK(aclrtCreateStream(&streams[r]));
    }
}

TEST(bad_input_gets_hccl_codes_and_a_message)
{
    int32_t *b = (int32_t *)dev_alloc(64);
    HcclComm c = comms[0];
    aclrtStream s = streams[0];
    on_rank(0);
    CHECK_EQ(HCCL_E_PTR, HcclAllReduce(b, b, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, NULL, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "comm is NULL");
    CHECK_EQ(HCCL_E_PTR, HcclAllReduce(b, b, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, c, NULL));
    CHECK_EQ(HCCL_E_PTR, HcclAllReduce(NULL, b, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, c, s));
    CHECK_EQ(HCCL_E_PARA, HcclAllReduce(b, b, 4, (HcclDataType)99, HCCL_REDUCE_SUM, c, s));
    CHECK_EQ(HCCL_E_PARA, HcclAllReduce(b, b, 4, HCCL_DATA_TYPE_INT32, (HcclReduceOp)9, c, s));
    CHECK_EQ(HCCL_E_NOT_SUPPORT, HcclAllReduce(b, b, 4, HCCL_DATA_TYPE_INT128, HCCL_REDUCE_SUM, c, s));
    CHECK_EQ(HCCL_E_NOT_SUPPORT, HcclReduce(b, b, 4, HCCL_DATA_TYPE_FP8E4M3, HCCL_REDUCE_MAX, 0, c, s));
    CHECK_EQ(HCCL_E_PARA, HcclBroadcast(b, 4, HCCL_DATA_TYPE_INT32, RANKS, c, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "out of range");
    CHECK_EQ(HCCL_E_PARA, HcclSend(b, 4, HCCL_DATA_TYPE_INT32, 7, c, s));
    CHECK_EQ(HCCL_E_PARA, HcclScatter(b, b, 4, HCCL_DATA_TYPE_INT32, 99, c, s));
    CHECK_EQ(HCCL_E_PTR, HcclAllGatherV(b, 1, b, NULL, NULL, HCCL_DATA_TYPE_INT32, c, s));
    CHECK_EQ(HCCL_E_PARA, HcclAlltoAll(b, 1, HCCL_DATA_TYPE_INT32, b, 1, HCCL_DATA_TYPE_INT16, c, s));
    HcclSendRecvItem bad = {.sendRecvType = (HcclSendRecvType)5, .buf = b, .count = 1,
                            .dataType = HCCL_DATA_TYPE_INT32, .remoteRank = 1};
    CHECK_EQ(HCCL_E_PARA, HcclBatchSendRecv(&bad, 1, c, s));
    CHECK_EQ(HCCL_E_PARA, HcclGroupEnd());
    /* Nothing was submitted by any of them. */
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    uint32_t v;
    CHECK_EQ(HCCL_E_PTR, HcclGetRankSize(c, NULL));
    CHECK_EQ(HCCL_E_PTR, HcclGetRankSize(NULL, &v));
    HcclComm junk = (HcclComm)(uintptr_t)0x1234;
    CHECK_EQ(HCCL_E_PARA, HcclGetRankId(junk, &v));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no live communicator");
    /* Making communicators */
    HcclComm out[2];
    int32_t dup[2] = {1, 1}, far[2] = {0, 64};
    CHECK_EQ(HCCL_E_PARA, HcclCommInitAll(2, dup, out));
    CHECK_EQ(HCCL_E_PARA, HcclCommInitAll(2, far, out));
    CHECK_EQ(HCCL_E_PTR, HcclCommInitAll(2, NULL, out));
    HcclRootInfo root;
    memset(&root, 0x5A, sizeof root);
    HcclComm one;
    CHECK_EQ(HCCL_E_PARA, HcclCommInitRootInfo(2, &root, 0, &one));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "HcclGetRootInfo");
    CHECK_EQ(HCCL_SUCCESS, HcclGetRootInfo(&root));
    CHECK_EQ(HCCL_E_PARA, HcclCommInitRootInfo(2, &root, 2, &one));
    CHECK_EQ(HCCL_E_PARA, HcclCommInitRootInfo(0, &root, 0, &one));
    CHECK_EQ(HCCL_E_PTR, HcclCommInitRootInfo(2, NULL, 0, &one));
    HcclCommConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    CHECK_EQ(HCCL_E_PARA, HcclCommInitRootInfoConfig(1, &root, 0, &cfg, &one));
    CHECK_EQ(HCCL_E_OPEN_FILE_FAILURE, HcclCommInitClusterInfo("/nonexistent/rank_table.json", 0, &one));
    /* A destroyed communicator */
    int32_t d1[1] = {0};
    HcclComm lone;
    CHECK_EQ(HCCL_SUCCESS, HcclCommInitAll(1, d1, &lone));
    CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(lone));
    CHECK_EQ(HCCL_E_PARA, HcclCommDestroy(lone));
    CHECK_EQ(HCCL_E_PARA, HcclAllReduce(b, b, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, lone, s));
    CHECK_OK(aclrtFree(b));
}

TEST(queries_configs_memory_and_suspend_behave_as_documented)
{
    uint32_t v = 0;
    CHECK_EQ(HCCL_SUCCESS, HcclGetRankSize(comms[2], &v));
    CHECK_EQ(RANKS, v);
    CHECK_EQ(HCCL_SUCCESS, HcclGetRankId(comms[2], &v));
    CHECK_EQ(2, v);
    char name[COMM_NAME_MAX_LENGTH];
    CHECK_EQ(HCCL_SUCCESS, HcclGetCommName(comms[2], name));
    HcclComm found = NULL;
    CHECK_EQ(HCCL_SUCCESS, HcclCommGetHandleWithName(name, &found));
    CHECK(found == comms[0] || found == comms[1] || found == comms[2] || found == comms[3]); /* one name, 4 ranks */
    CHECK_EQ(HCCL_E_NOT_FOUND, HcclCommGetHandleWithName("no such communicator", &found));
    CHECK_STR_CONTAINS(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout");
    CHECK_EQ(HCCL_COMM_CONFIG_RESERVED, HcclGetCommConfigCapability());
    int32_t mode = -5;
    CHECK_EQ(HCCL_SUCCESS, HcclConfigGetInfo(comms[0], HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, sizeof mode, &mode));
    CHECK_EQ(HCCL_OP_EXPANSION_MODE_HOST, mode);
    HcclConfigValue cv = {.value = 1}, back = {.value = 0};
    CHECK_EQ(HCCL_SUCCESS, HcclSetConfig(HCCL_DETERMINISTIC, cv));
    CHECK_EQ(HCCL_SUCCESS, HcclGetConfig(HCCL_DETERMINISTIC, &back));
    CHECK_EQ(1, back.value);
    cv.value = 3;
    CHECK_EQ(HCCL_E_PARA, HcclSetConfig(HCCL_DETERMINISTIC, cv));
    /* Zero-copy ranges and mappings */
    static char range[1 << 16];
    int handle_storage;
    aclrtDrvMemHandle h = (aclrtDrvMemHandle)&handle_storage;
    CHECK_EQ(HCCL_E_PARA, HcclCommActivateCommMemory(comms[0], range, 4096, 0, h, 0));
    CHECK_EQ(HCCL_SUCCESS, HcclCommSetMemoryRange(comms[0], range, sizeof range, 0, 0));
    CHECK_EQ(HCCL_SUCCESS, HcclCommActivateCommMemory(comms[0], range + 4096, 4096, 0, h, 0));
    CHECK_EQ(HCCL_E_PARA, HcclCommUnsetMemoryRange(comms[0], range));
    CHECK_EQ(HCCL_SUCCESS, HcclCommDeactivateCommMemory(comms[0], range + 4096));
    CHECK_EQ(HCCL_E_PARA, HcclCommDeactivateCommMemory(comms[0], range + 4096));
    CHECK_EQ(HCCL_SUCCESS, HcclCommUnsetMemoryRange(comms[0], range));
    /* Symmetric windows */
    HcclCommSymWindow w = NULL, w2 = NULL;
    size_t off = 0;
    CHECK_EQ(HCCL_SUCCESS, HcclCommSymWinRegister(comms[1], range, 1024, &w, 0));
    CHECK_EQ(HCCL_SUCCESS, HcclCommSymWinGet(comms[1], range + 100, 8, &w2, &off));
    CHECK(w == w2);
    CHECK_EQ(100, off);
    CHECK_EQ(HCCL_E_NOT_FOUND, HcclCommSymWinGet(comms[1], range + 1020, 8, &w2, &off));
    CHECK_EQ(HCCL_SUCCESS, HcclCommSymWinDeregister(w));
    CHECK_EQ(HCCL_E_PARA, HcclCommSymWinDeregister(w));
    /* Suspend refuses operations until resume */
    int32_t *b = (int32_t *)dev_alloc(16);
    HcclCommStatus status = HCCL_COMM_STATUS_RESERVED;
    CHECK_EQ(HCCL_SUCCESS, HcclCommSuspend(comms[0]));
    CHECK_EQ(HCCL_E_SUSPENDING, HcclAllReduce(b, b, 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comms[0], streams[0]));
    CHECK_EQ(HCCL_SUCCESS, HcclCommResume(comms[0]));
    CHECK_EQ(HCCL_E_PARA, HcclCommResume(comms[0]));
    CHECK_EQ(HCCL_SUCCESS, HcclCommGetStatus(name, &status));
    CHECK_EQ(HCCL_COMM_STATUS_READY, status);
    CHECK_OK(aclrtFree(b));
}

/* A case that failed half way leaves no gate closed behind it. */
#define RUN_CASE(name)                                                                                 \
    do {                                                                                           \
        RUN(name);                                                                                 \
        gates_open_all();                                                                          \
    } while (0)

/* A case the backend's collective engine does not run: said, not run. */
#define SKIP_ON_ENGINE(name, why)                                                                      \
    do {                                                                                           \
        if (engine)                                                                                \
            printf("hccl: skipped on the %s backend (%s): %s\n", backend, why, #name);              \
        else                                                                                       \
            RUN_CASE(name);                                                                        \
    } while (0)

int main(void)
{
    setenv("ACLRT_DEVICES", "4", 1);
    /* The cuda backend's test doubles: four GPUs whose memory the CPU addresses (the cases put and get values). */
    setenv("ACLRT_FAKE_CUDA_DEVICES", "4", 0);
    setenv("ACLRT_FAKE_CUDA_HOST_ACCESS", "1", 0);
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "hccl: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    HcclResult made = HcclCommInitAll(RANKS, devices, comms);
    const char *backend = aclrtxGetBackendName();
    /* The cuda backend runs HCCL through NCCL (docs/HCCL.md): what NCCL does not do is not asked of it. */
    engine = backend != NULL && strcmp(backend, "cuda") == 0;
    if (made != HCCL_SUCCESS) {
        fprintf(stderr, "hccl: HcclCommInitAll: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    for (int r = 0; r < RANKS; r++) {
        aclrtSetDevice(devices[r]);
        aclrtCreateStream(&streams[r]);
        /* The cases allocate every rank's buffers on one device: through NCCL the others reach them as peers. */
        for (int p = 0; engine && p < RANKS; p++)
            if (p != r && aclrtDeviceEnablePeerAccess(devices[p], 0) != ACL_SUCCESS)
                fprintf(stderr, "hccl: peer access %d -> %d: %s\n", r, p, aclGetRecentErrMsg());
    }
    RUN_CASE(allreduce_and_reduce_give_the_reference_for_every_type_and_operation);
    RUN_CASE(reduce_scatter_and_its_v_form_give_each_rank_its_reduced_block);
    RUN_CASE(data_movement_collectives_give_the_reference_for_every_type);
    RUN_CASE(alltoallv_and_alltoallvc_route_every_count_to_its_place);
    RUN_CASE(in_place_allreduce_allgather_and_reduce_scatter_read_before_they_write);
    RUN_CASE(an_operation_runs_in_stream_order_after_an_event_wait_and_before_later_tasks);
    RUN_CASE(a_captured_allreduce_runs_at_every_replay_of_the_model);
    RUN_CASE(the_barrier_holds_every_stream_until_the_last_rank_reaches_it);
    RUN_CASE(sends_and_receives_pair_in_the_order_they_were_issued);
    RUN_CASE(a_ring_exchange_works_as_a_batch_and_as_a_group);
    RUN_CASE(one_thread_drives_every_rank_in_one_group_across_devices);
    RUN_CASE(a_sub_communicator_of_two_ranks_reduces_over_its_members_only);
    RUN_CASE(threads_sharing_one_root_info_make_one_communicator);
    RUN_CASE(a_rank_that_never_comes_fails_the_others_within_the_exec_timeout);
    SKIP_ON_ENGINE(a_rendezvous_that_never_completes_fails_within_the_connect_timeout, "NCCL's own rendezvous");
    SKIP_ON_ENGINE(ranks_that_disagree_fail_the_collective_and_break_the_communicator, "NCCL does not compare");
    RUN_CASE(bad_input_gets_hccl_codes_and_a_message);
    RUN_CASE(queries_configs_memory_and_suspend_behave_as_documented);
    gates_open_all();
    for (int r = 0; r < RANKS; r++) {
        aclrtSetDevice(devices[r]);
        aclrtDestroyStream(streams[r]);
        HcclCommDestroy(comms[r]);
    }
    aclFinalize();
    return check_report("hccl");
}
