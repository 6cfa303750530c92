/*
 * tests/test_hccl_device.c - HCCL on device memory the CPU may not address:
 * every value goes in and out with aclrtMemcpy, as a program on a GPU
 * does, so the same cases run on the host backend, on the cuda backend's
 * test doubles and on a GPU (one rank per device: one on a machine with
 * one GPU, through the real NCCL). Collectives give the reference; an
 * operation runs in stream order between the stream's copies; the engine's
 * refusals come at the call.
 */
#include "check.h"
#include "hccl/hccl.h"

#define MAX_RANKS 8
#define N 1000 /* elements per rank's block */

static uint32_t nranks;
static HcclComm comms[MAX_RANKS];
static aclrtStream streams[MAX_RANKS];
static int32_t devices[MAX_RANKS];

static void on_rank(uint32_t r)
{
    CHECK_OK(aclrtSetDevice(devices[r]));
}

/* Device memory holding `n` values from host memory. */
static void *upload(const void *host, size_t bytes)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return p;
}

static void download(void *host, const void *dev, size_t bytes)
{
    CHECK_OK(aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

static void sync_all(void)
{
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_OK(aclrtSynchronizeStream(streams[r]));
    }
}

TEST(allreduce_and_broadcast_give_the_reference_in_device_memory)
{
    static float in[MAX_RANKS][N], out[N];
    static int32_t iv[MAX_RANKS][N], imax[N];
    void *send[MAX_RANKS], *recv[MAX_RANKS], *isend[MAX_RANKS], *irecv[MAX_RANKS];
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        for (int i = 0; i < N; i++)
            in[r][i] = (float)(r + 1) * 0.5f + (float)i, iv[r][i] = (int32_t)((i * 7 + (int)r * 13) % 101);
        send[r] = upload(in[r], sizeof in[r]);
        recv[r] = upload(in[r], sizeof in[r]);
        isend[r] = upload(iv[r], sizeof iv[r]);
        irecv[r] = upload(iv[r], sizeof iv[r]);
    }
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(send[r], recv[r], N, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[r],
                                             streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(isend[r], irecv[r], N, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, comms[r],
                                             streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclBroadcast(isend[r], N, HCCL_DATA_TYPE_INT32, nranks - 1, comms[r], streams[r]));
    }
    sync_all();
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        download(out, recv[r], sizeof out);
        download(imax, irecv[r], sizeof imax);
        for (int i = 0; i < N; i++) {
            float want = 0;
            int32_t most = INT32_MIN;
            for (uint32_t k = 0; k < nranks; k++)
                want += in[k][i], most = iv[k][i] > most ? iv[k][i] : most;
            CHECK_EQ(want, out[i]);
            CHECK_EQ(most, imax[i]);
        }
        download(imax, isend[r], sizeof imax);
        CHECK_EQ(0, memcmp(imax, iv[nranks - 1], sizeof imax));
        CHECK_OK(aclrtFree(send[r]));
        CHECK_OK(aclrtFree(recv[r]));
        CHECK_OK(aclrtFree(isend[r]));
        CHECK_OK(aclrtFree(irecv[r]));
    }
}

TEST(allgather_reduce_scatter_and_alltoall_place_every_block)
{
    static int64_t in[MAX_RANKS][MAX_RANKS * N], out[MAX_RANKS * N];
    void *send[MAX_RANKS], *gathered[MAX_RANKS], *scattered[MAX_RANKS], *swapped[MAX_RANKS];
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        for (uint32_t i = 0; i < nranks * N; i++)
            in[r][i] = (int64_t)r * 1000000 + i;
        send[r] = upload(in[r], nranks * N * sizeof(int64_t));
        gathered[r] = upload(out, nranks * N * sizeof(int64_t));
        scattered[r] = upload(out, N * sizeof(int64_t));
        swapped[r] = upload(out, nranks * N * sizeof(int64_t));
    }
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclAllGather(send[r], gathered[r], N, HCCL_DATA_TYPE_INT64, comms[r], streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclReduceScatter(send[r], scattered[r], N, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM,
                                                 comms[r], streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclAlltoAll(send[r], N, HCCL_DATA_TYPE_INT64, swapped[r], N, HCCL_DATA_TYPE_INT64,
                                            comms[r], streams[r]));
    }
    sync_all();
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        download(out, gathered[r], nranks * N * sizeof(int64_t));
        for (uint32_t k = 0; k < nranks; k++)
            for (int i = 0; i < N; i++)
                CHECK_EQ(in[k][i], out[k * N + i]);
        download(out, scattered[r], N * sizeof(int64_t));
        for (int i = 0; i < N; i++) {
            int64_t want = 0;
            for (uint32_t k = 0; k < nranks; k++)
                want += in[k][r * N + i];
            CHECK_EQ(want, out[i]);
        }
        download(out, swapped[r], nranks * N * sizeof(int64_t));
        for (uint32_t k = 0; k < nranks; k++)
            for (int i = 0; i < N; i++)
                CHECK_EQ(in[k][r * N + i], out[k * N + i]);
        CHECK_OK(aclrtFree(send[r]));
        CHECK_OK(aclrtFree(gathered[r]));
        CHECK_OK(aclrtFree(scattered[r]));
        CHECK_OK(aclrtFree(swapped[r]));
    }
}

/* Copies in, an allreduce, copies out, all on one stream: one synchronize sees the sum. */
TEST(an_allreduce_runs_between_its_streams_copies_in_order)
{
    static int32_t host[MAX_RANKS][N], back[N];
    void *pinned[MAX_RANKS], *dev[MAX_RANKS];
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        for (int i = 0; i < N; i++)
            host[r][i] = (int32_t)(i + 1) * (int32_t)(r + 1);
        CHECK_OK(aclrtMallocHost(&pinned[r], sizeof host[r]));
        memcpy(pinned[r], host[r], sizeof host[r]);
        CHECK_OK(aclrtMalloc(&dev[r], sizeof host[r], ACL_MEM_MALLOC_HUGE_FIRST));
    }
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_OK(aclrtMemcpyAsync(dev[r], sizeof host[r], pinned[r], sizeof host[r], ACL_MEMCPY_HOST_TO_DEVICE,
                                  streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclAllReduce(dev[r], dev[r], N, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comms[r],
                                             streams[r]));
        CHECK_OK(aclrtMemcpyAsync(pinned[r], sizeof host[r], dev[r], sizeof host[r], ACL_MEMCPY_DEVICE_TO_HOST,
                                  streams[r]));
    }
    sync_all();
    int32_t scale = (int32_t)(nranks * (nranks + 1) / 2);
    for (uint32_t r = 0; r < nranks; r++) {
        memcpy(back, pinned[r], sizeof back);
        for (int i = 0; i < N; i++)
            CHECK_EQ((i + 1) * scale, back[i]);
        CHECK_OK(aclrtFreeHost(pinned[r]));
        CHECK_OK(aclrtFree(dev[r]));
    }
}

TEST(a_barrier_and_an_async_error_query_succeed)
{
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_EQ(HCCL_SUCCESS, HcclBarrier(comms[r], streams[r]));
    }
    sync_all();
    for (uint32_t r = 0; r < nranks; r++) {
        HcclResult e = HCCL_E_INTERNAL;
        CHECK_EQ(HCCL_SUCCESS, HcclGetCommAsyncError(comms[r], &e));
        CHECK_EQ(HCCL_SUCCESS, e);
    }
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "hccl_device: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    CHECK_OK(aclrtGetDeviceCount(&nranks));
    nranks = nranks > MAX_RANKS ? MAX_RANKS : nranks;
    for (uint32_t r = 0; r < nranks; r++)
        devices[r] = (int32_t)r;
    HcclResult made = HcclCommInitAll(nranks, devices, comms);
    if (made != HCCL_SUCCESS) {
        fprintf(stderr, "hccl_device: HcclCommInitAll of %u ranks: %s\n", nranks, aclGetRecentErrMsg());
        return 1;
    }
    printf("hccl_device: %u rank(s) on the %s backend\n", nranks, aclrtxGetBackendName());
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_OK(aclrtCreateStream(&streams[r]));
    }
    RUN(allreduce_and_broadcast_give_the_reference_in_device_memory);
    RUN(allgather_reduce_scatter_and_alltoall_place_every_block);
    RUN(an_allreduce_runs_between_its_streams_copies_in_order);
    RUN(a_barrier_and_an_async_error_query_succeed);
    for (uint32_t r = 0; r < nranks; r++) {
        on_rank(r);
        CHECK_OK(aclrtDestroyStream(streams[r]));
        CHECK_EQ(HCCL_SUCCESS, HcclCommDestroy(comms[r]));
    }
    aclFinalize();
    return check_report("hccl_device");
}
