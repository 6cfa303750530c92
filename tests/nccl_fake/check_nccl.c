/*
 * tests/nccl_fake/check_nccl.c - the NCCL test double (fake_nccl.c) alone,
 * as a CUDA program uses NCCL: the driver double and the NCCL double
 * opened at run time (argv[1]: libcuda_fake.so, argv[2]: libnccl_fake.so),
 * four fake GPUs, ranks as threads, then ranks as processes (this program
 * spawned again with --child: a communicator of two threads and two child
 * processes, one of two processes, a child that never joins, one that
 * aborts, one killed). make test-nccl-fake runs it in the
 * variants cuda, cuda-tsan and cuda-asan, with
 * ACLRT_FAKE_NCCL_INIT_TIMEOUT_MS and ACLRT_FAKE_NCCL_EXEC_TIMEOUT_MS short
 * (the cases that wait for a rank that never comes).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

typedef unsigned int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct ncclComm *ncclComm_t;
typedef struct {
    char internal[128];
} ncclUniqueId;
typedef int ncclResult_t;

enum { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInvalidArgument = 4,
       ncclInvalidUsage = 5, ncclRemoteError = 6 };
enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 };
enum { ncclInt8 = 0, ncclInt32 = 2, ncclFloat16 = 6, ncclFloat32 = 7, ncclBfloat16 = 9, ncclFloat8e4m3 = 10 };

#define NDEV 4
#define N 1000

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, int);
    CUresult (*DevicePrimaryCtxRelease)(int);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*StreamCreateWithPriority)(CUstream *, unsigned, int);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*StreamQuery)(CUstream);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*Memcpy)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*StreamBeginCapture)(CUstream, unsigned);
    CUresult (*StreamEndCapture)(CUstream, CUgraph *);
    CUresult (*GraphDestroy)(CUgraph);
} cu;

static struct {
    ncclResult_t (*GetVersion)(int *);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*CommInitAll)(ncclComm_t *, int, const int *);
    ncclResult_t (*CommSplit)(ncclComm_t, int, int, ncclComm_t *, void *);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*CommFinalize)(ncclComm_t);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
    ncclResult_t (*CommCount)(ncclComm_t, int *);
    ncclResult_t (*CommCuDevice)(ncclComm_t, int *);
    ncclResult_t (*CommUserRank)(ncclComm_t, int *);
    const char *(*GetErrorString)(ncclResult_t);
    const char *(*GetLastError)(ncclComm_t);
    ncclResult_t (*AllReduce)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
    ncclResult_t (*Broadcast)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
    ncclResult_t (*Reduce)(const void *, void *, size_t, int, int, int, ncclComm_t, CUstream);
    ncclResult_t (*AllGather)(const void *, void *, size_t, int, ncclComm_t, CUstream);
    ncclResult_t (*ReduceScatter)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
    ncclResult_t (*Send)(const void *, size_t, int, int, ncclComm_t, CUstream);
    ncclResult_t (*Recv)(void *, size_t, int, int, ncclComm_t, CUstream);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    unsigned long long (*ops)(void);
    int (*comms)(void);
} nc;

static CUcontext g_ctx[NDEV];
static ncclUniqueId g_id;
static pthread_barrier_t g_barrier;

#define FAILED(...)                                                                                                    \
    do {                                                                                                               \
        fprintf(stderr, "check_nccl:%d: ", __LINE__);                                                                  \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fprintf(stderr, "\n");                                                                                         \
        exit(1);                                                                                                       \
    } while (0)
#define CK(x)                                                                                                          \
    do {                                                                                                               \
        CUresult r_ = (x);                                                                                             \
        if (r_ != 0)                                                                                                   \
            FAILED("%s: CUresult %u", #x, r_);                                                                         \
    } while (0)
#define NK(x)                                                                                                          \
    do {                                                                                                               \
        ncclResult_t r_ = (x);                                                                                         \
        if (r_ != ncclSuccess)                                                                                         \
            FAILED("%s: %d (%s)", #x, r_, nc.GetLastError(NULL));                                                      \
    } while (0)
#define EXPECT_NCCL(want, x)                                                                                           \
    do {                                                                                                               \
        ncclResult_t r_ = (x);                                                                                         \
        if (r_ != (want))                                                                                              \
            FAILED("%s: %d, expected %d (%s)", #x, r_, (int)(want), nc.GetLastError(NULL));                            \
    } while (0)
#define EXPECT(c, ...)                                                                                                 \
    do {                                                                                                               \
        if (!(c))                                                                                                      \
            FAILED(__VA_ARGS__);                                                                                       \
    } while (0)

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (p == NULL)
        FAILED("no symbol %s", name);
    return p;
}

static void *dalloc(size_t n)
{
    CUdeviceptr p;
    CK(cu.MemAlloc(&p, n));
    return (void *)(uintptr_t)p;
}

static void h2d(void *d, const void *h, size_t n) { CK(cu.Memcpy((CUdeviceptr)(uintptr_t)d, (CUdeviceptr)(uintptr_t)h, n)); }
static void d2h(void *h, const void *d, size_t n) { CK(cu.Memcpy((CUdeviceptr)(uintptr_t)h, (CUdeviceptr)(uintptr_t)d, n)); }
static void dfree(void *d) { CK(cu.MemFree((CUdeviceptr)(uintptr_t)d)); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------
 * Four ranks, a thread each
 * ------------------------------------------------------------------------ */

static void *rank_main(void *arg)
{
    int r = (int)(intptr_t)arg;
    CK(cu.CtxSetCurrent(g_ctx[r]));
    CUstream s;
    CK(cu.StreamCreateWithPriority(&s, 1, 0));
    ncclComm_t comm;
    NK(nc.CommInitRank(&comm, NDEV, g_id, r));
    int v;
    NK(nc.CommCount(comm, &v));
    EXPECT(v == NDEV, "count %d", v);
    NK(nc.CommUserRank(comm, &v));
    EXPECT(v == r, "rank %d", v);
    NK(nc.CommCuDevice(comm, &v));
    EXPECT(v == r, "device %d", v);

    static float hf[NDEV][4 * N];
    static int32_t hi[NDEV][4 * N];
    float *f = hf[r];
    int32_t *h = hi[r];
    float *fs = dalloc(4 * N * sizeof(float)), *fr = dalloc(4 * N * sizeof(float));
    int32_t *is = dalloc(4 * N * sizeof(int32_t)), *ir = dalloc(4 * N * sizeof(int32_t));
    uint16_t *hs = dalloc(N * 2), *hr = dalloc(N * 2);

    /* allreduce sum, float */
    for (int i = 0; i < N; i++)
        f[i] = (float)r + (float)i * 0.5f;
    h2d(fs, f, N * sizeof(float));
    NK(nc.AllReduce(fs, fr, N, ncclFloat32, ncclSum, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(f, fr, N * sizeof(float));
    for (int i = 0; i < N; i++)
        EXPECT(f[i] == 6.0f + 2.0f * (float)i, "rank %d: allreduce sum float [%d] = %g", r, i, (double)f[i]);

    /* allreduce max, int32, in place; then avg (integer division) */
    for (int i = 0; i < N; i++)
        h[i] = r * 10 - i;
    h2d(is, h, N * sizeof(int32_t));
    NK(nc.AllReduce(is, is, N, ncclInt32, ncclMax, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(h, is, N * sizeof(int32_t));
    for (int i = 0; i < N; i++)
        EXPECT(h[i] == 30 - i, "rank %d: allreduce max int [%d] = %d", r, i, h[i]);
    for (int i = 0; i < N; i++)
        h[i] = r + i;
    h2d(is, h, N * sizeof(int32_t));
    NK(nc.AllReduce(is, ir, N, ncclInt32, ncclAvg, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, N * sizeof(int32_t));
    for (int i = 0; i < N; i++)
        EXPECT(h[i] == (6 + 4 * i) / 4, "rank %d: allreduce avg int [%d] = %d", r, i, h[i]);

    /* bf16 and fp16 sums: exact, and rounded once to nearest even after a float sum */
    uint16_t u[N];
    for (int i = 0; i < N; i++)
        u[i] = i % 2 == 0 ? (uint16_t)(r == 0 ? 0x3f80 : r == 1 ? 0x4000 : r == 2 ? 0x4040 : 0x4080) /* r+1 */
                          : (uint16_t)(r == 0 ? 0x3f80 : 0x3b80);                                     /* 1, 2^-8 */
    h2d(hs, u, sizeof u);
    NK(nc.AllReduce(hs, hr, N, ncclBfloat16, ncclSum, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(u, hr, sizeof u);
    for (int i = 0; i < N; i++)
        EXPECT(u[i] == (i % 2 == 0 ? 0x4120 : 0x3f82), "rank %d: bf16 sum [%d] = %#x", r, i, u[i]);
    for (int i = 0; i < N; i++)
        u[i] = i % 2 == 0 ? (uint16_t)(r == 0 ? 0x3800 : r == 1 ? 0x3c00 : r == 2 ? 0x3e00 : 0x4000) /* (r+1)/2 */
                          : (uint16_t)(r == 0 ? 0x3c00 : 0x1000);                                     /* 1, 2^-11 */
    h2d(hs, u, sizeof u);
    NK(nc.AllReduce(hs, hs, N, ncclFloat16, ncclSum, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(u, hs, sizeof u);
    for (int i = 0; i < N; i++)
        EXPECT(u[i] == (i % 2 == 0 ? 0x4500 : 0x3c02), "rank %d: fp16 sum [%d] = %#x", r, i, u[i]);

    /* broadcast from root 2 */
    for (int i = 0; i < N; i++)
        h[i] = r * 100 + i;
    h2d(is, h, N * sizeof(int32_t));
    NK(nc.Broadcast(is, ir, N, ncclInt32, 2, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, N * sizeof(int32_t));
    for (int i = 0; i < N; i++)
        EXPECT(h[i] == 200 + i, "rank %d: broadcast [%d] = %d", r, i, h[i]);

    /* reduce (sum) to root 1: the others' recvbuff untouched */
    for (int i = 0; i < N; i++)
        h[i] = -7;
    h2d(ir, h, N * sizeof(int32_t));
    for (int i = 0; i < N; i++)
        h[i] = r * i;
    h2d(is, h, N * sizeof(int32_t));
    NK(nc.Reduce(is, r == 1 ? ir : NULL, N, ncclInt32, ncclSum, 1, comm, s));
    CK(cu.StreamSynchronize(s));
    if (r != 1) { /* a recvbuff of a non-root is ignored: here NULL, then a real one */
        NK(nc.Reduce(is, ir, N, ncclInt32, ncclSum, 1, comm, s));
    } else {
        NK(nc.Reduce(is, ir, N, ncclInt32, ncclSum, 1, comm, s));
    }
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, N * sizeof(int32_t));
    for (int i = 0; i < N; i++)
        EXPECT(h[i] == (r == 1 ? 6 * i : -7), "rank %d: reduce [%d] = %d", r, i, h[i]);

    /* allgather, out of place then in place */
    for (int i = 0; i < N; i++)
        h[i] = r * 10000 + i;
    h2d(is, h, N * sizeof(int32_t));
    NK(nc.AllGather(is, ir, N, ncclInt32, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, NDEV * N * sizeof(int32_t));
    for (int k = 0; k < NDEV; k++)
        for (int i = 0; i < N; i++)
            EXPECT(h[k * N + i] == k * 10000 + i, "rank %d: allgather [%d][%d] = %d", r, k, i, h[k * N + i]);
    for (int i = 0; i < NDEV * N; i++)
        h[i] = -1;
    for (int i = 0; i < N; i++)
        h[r * N + i] = r * 3 + i;
    h2d(ir, h, NDEV * N * sizeof(int32_t));
    NK(nc.AllGather(ir + r * N, ir, N, ncclInt32, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, NDEV * N * sizeof(int32_t));
    for (int k = 0; k < NDEV; k++)
        for (int i = 0; i < N; i++)
            EXPECT(h[k * N + i] == k * 3 + i, "rank %d: allgather in place [%d][%d] = %d", r, k, i, h[k * N + i]);

    /* reducescatter (sum), out of place and in place */
    for (int j = 0; j < NDEV * N; j++)
        f[j] = (float)(r + j);
    h2d(fs, f, NDEV * N * sizeof(float));
    NK(nc.ReduceScatter(fs, fr, N, ncclFloat32, ncclSum, comm, s));
    NK(nc.ReduceScatter(fs, fs + r * N, N, ncclFloat32, ncclSum, comm, s));
    CK(cu.StreamSynchronize(s));
    d2h(f, fr, N * sizeof(float));
    for (int i = 0; i < N; i++)
        EXPECT(f[i] == (float)(6 + 4 * (r * N + i)), "rank %d: reducescatter [%d] = %g", r, i, (double)f[i]);
    d2h(f, fs + r * N, N * sizeof(float));
    for (int i = 0; i < N; i++)
        EXPECT(f[i] == (float)(6 + 4 * (r * N + i)), "rank %d: reducescatter in place [%d] = %g", r, i, (double)f[i]);

    /* a ring of sends and receives in one group */
    for (int i = 0; i < N; i++)
        h[i] = r * 7 + i;
    h2d(is, h, N * sizeof(int32_t));
    NK(nc.GroupStart());
    NK(nc.Send(is, N, ncclInt32, (r + 1) % NDEV, comm, s));
    NK(nc.Recv(ir, N, ncclInt32, (r + NDEV - 1) % NDEV, comm, s));
    NK(nc.GroupEnd());
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, N * sizeof(int32_t));
    for (int i = 0; i < N; i++)
        EXPECT(h[i] == ((r + NDEV - 1) % NDEV) * 7 + i, "rank %d: ring recv [%d] = %d", r, i, h[i]);

    ncclResult_t ae;
    NK(nc.CommGetAsyncError(comm, &ae));
    EXPECT(ae == ncclSuccess, "rank %d: async error %d", r, ae);

    /* split into two halves, keys reversed */
    ncclComm_t half;
    NK(nc.CommSplit(comm, r / 2, -r, &half, NULL));
    NK(nc.CommCount(half, &v));
    EXPECT(v == 2, "half count %d", v);
    NK(nc.CommUserRank(half, &v));
    EXPECT(v == 1 - r % 2, "rank %d: half rank %d", r, v);
    h[0] = r;
    h2d(is, h, sizeof(int32_t));
    NK(nc.AllReduce(is, ir, 1, ncclInt32, ncclSum, half, s));
    CK(cu.StreamSynchronize(s));
    d2h(h, ir, sizeof(int32_t));
    EXPECT(h[0] == (r < 2 ? 1 : 5), "rank %d: half allreduce %d", r, h[0]);
    NK(nc.CommDestroy(half));
    /* a rank out of every color */
    ncclComm_t three;
    NK(nc.CommSplit(comm, r == 3 ? -1 : 0, 0, &three, NULL));
    if (r == 3) {
        EXPECT(three == NULL, "NOCOLOR gave a communicator");
    } else {
        NK(nc.CommCount(three, &v));
        EXPECT(v == 3, "three count %d", v);
        NK(nc.CommDestroy(three));
    }

    pthread_barrier_wait(&g_barrier);
    NK(nc.CommFinalize(comm));
    NK(nc.CommDestroy(comm));
    EXPECT_NCCL(ncclInvalidArgument, nc.CommCount(comm, &v)); /* destroyed */
    dfree(fs);
    dfree(fr);
    dfree(is);
    dfree(ir);
    dfree(hs);
    dfree(hr);
    CK(cu.StreamDestroy(s));
    return NULL;
}

/* ------------------------------------------------------------------------
 * One thread
 * ------------------------------------------------------------------------ */

static void one_thread_drives_all(void)
{
    ncclComm_t c[NDEV];
    CUstream s[NDEV];
    int32_t *buf[NDEV], *out[NDEV];
    NK(nc.CommInitAll(c, NDEV, NULL));
    for (int r = 0; r < NDEV; r++) {
        int d;
        NK(nc.CommCuDevice(c[r], &d));
        EXPECT(d == r, "InitAll: rank %d on device %d", r, d);
        CK(cu.CtxSetCurrent(g_ctx[r]));
        CK(cu.StreamCreateWithPriority(&s[r], 1, 0));
        buf[r] = dalloc(N * sizeof(int32_t));
        out[r] = dalloc(N * sizeof(int32_t));
        int32_t h[N];
        for (int i = 0; i < N; i++)
            h[i] = (r + 1) * (i + 1);
        h2d(buf[r], h, sizeof h);
    }
    NK(nc.GroupStart());
    for (int r = 0; r < NDEV; r++)
        NK(nc.AllReduce(buf[r], out[r], N, ncclInt32, ncclSum, c[r], s[r]));
    NK(nc.GroupEnd());
    /* sends and receives of every rank from one thread, nested groups */
    NK(nc.GroupStart());
    for (int r = 0; r < NDEV; r++) {
        NK(nc.GroupStart());
        NK(nc.Send(buf[r], N, ncclInt32, (r + NDEV - 1) % NDEV, c[r], s[r]));
        NK(nc.Recv(out[r] + 0, 0, ncclInt32, (r + 1) % NDEV, c[r], s[r])); /* count 0: nothing */
        NK(nc.GroupEnd());
    }
    int32_t *ring[NDEV];
    for (int r = 0; r < NDEV; r++) {
        CK(cu.CtxSetCurrent(g_ctx[r]));
        ring[r] = dalloc(N * sizeof(int32_t));
        NK(nc.Recv(ring[r], N, ncclInt32, (r + 1) % NDEV, c[r], s[r]));
    }
    NK(nc.GroupEnd());
    for (int r = 0; r < NDEV; r++) {
        CK(cu.CtxSetCurrent(g_ctx[r]));
        CK(cu.StreamSynchronize(s[r]));
        int32_t h[N];
        d2h(h, out[r], sizeof h);
        for (int i = 0; i < N; i++)
            EXPECT(h[i] == 10 * (i + 1), "one thread: rank %d [%d] = %d", r, i, h[i]);
        d2h(h, ring[r], sizeof h);
        for (int i = 0; i < N; i++)
            EXPECT(h[i] == ((r + 1) % NDEV + 1) * (i + 1), "one thread: ring rank %d [%d] = %d", r, i, h[i]);
    }

    /* bad arguments, on these communicators */
    CK(cu.CtxSetCurrent(g_ctx[0]));
    int32_t host[N];
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(host, out[0], N, ncclInt32, ncclSum, c[0], s[0]));
    EXPECT(strstr(nc.GetLastError(NULL), "not in one live allocation") != NULL, "last error: %s",
           nc.GetLastError(NULL));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], out[0], N + 1000, ncclInt32, ncclSum, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], out[0], N, 99, ncclSum, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], out[0], N, ncclInt32, 17, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], out[0], N, ncclFloat8e4m3, ncclSum, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], out[0], SIZE_MAX / 2, ncclInt32, ncclSum, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], buf[0] + 1, 10, ncclInt32, ncclSum, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.Broadcast(buf[0], out[0], N, ncclInt32, NDEV, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllGather(buf[0], buf[0], 10, ncclInt32, c[1], s[1])); /* rank 1: not in place */
    EXPECT_NCCL(ncclInvalidArgument, nc.Send(buf[0], N, ncclInt32, NDEV, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[0], out[0], N, ncclInt32, ncclSum, NULL, s[0]));
    int v;
    EXPECT_NCCL(ncclInvalidArgument, nc.CommCount(c[0], NULL));
    /* a failed call fails its group: nothing launched */
    unsigned long long ops = nc.ops();
    NK(nc.GroupStart());
    NK(nc.AllReduce(buf[0], out[0], N, ncclInt32, ncclSum, c[0], s[0]));
    EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(host, out[1], N, ncclInt32, ncclSum, c[1], s[1]));
    EXPECT_NCCL(ncclInvalidArgument, nc.GroupEnd());
    EXPECT_NCCL(ncclInvalidUsage, nc.GroupEnd()); /* no group */
    for (int r = 0; r < NDEV; r++)
        CK(cu.StreamSynchronize(s[r]));
    EXPECT(nc.ops() == ops, "a failed group ran something");

    /* capture: not modelled, refused, the capture unharmed */
    CUgraph g;
    CK(cu.StreamBeginCapture(s[0], 2 /* relaxed */));
    EXPECT_NCCL(ncclUnhandledCudaError, nc.AllReduce(buf[0], out[0], N, ncclInt32, ncclSum, c[0], s[0]));
    CK(cu.StreamEndCapture(s[0], &g));
    CK(cu.GraphDestroy(g));

    /* the communicators are still in step: one more allreduce */
    for (int r = 0; r < NDEV; r++)
        NK(nc.CommCount(c[r], &v));
    NK(nc.GroupStart());
    for (int r = 0; r < NDEV; r++)
        NK(nc.AllReduce(buf[r], out[r], 1, ncclInt32, ncclMin, c[r], s[r]));
    NK(nc.GroupEnd());
    for (int r = 0; r < NDEV; r++) {
        CK(cu.CtxSetCurrent(g_ctx[r]));
        CK(cu.StreamSynchronize(s[r]));
        int32_t h;
        d2h(&h, out[r], sizeof h);
        EXPECT(h == 1, "min: %d", h);
        ncclResult_t ae;
        NK(nc.CommGetAsyncError(c[r], &ae));
        EXPECT(ae == ncclSuccess, "async error %d", ae);
        NK(nc.CommDestroy(c[r]));
        EXPECT_NCCL(ncclInvalidArgument, nc.AllReduce(buf[r], out[r], 1, ncclInt32, ncclSum, c[r], s[r]));
        dfree(buf[r]);
        dfree(out[r]);
        dfree(ring[r]);
        CK(cu.StreamDestroy(s[r]));
    }
}

/* One thread initialises every rank inside a group. */
static void group_init(void)
{
    ncclUniqueId id;
    ncclComm_t c[NDEV];
    NK(nc.GetUniqueId(&id));
    NK(nc.GroupStart());
    for (int r = 0; r < NDEV; r++) {
        CK(cu.CtxSetCurrent(g_ctx[r]));
        NK(nc.CommInitRank(&c[r], NDEV, id, r));
    }
    NK(nc.GroupEnd());
    for (int r = 0; r < NDEV; r++) {
        int d;
        NK(nc.CommCuDevice(c[r], &d));
        EXPECT(d == r, "group init: rank %d on device %d", r, d);
        NK(nc.CommDestroy(c[r]));
    }
}

static void refusals(void)
{
    /* duplicate GPU */
    ncclComm_t c[2] = {NULL, NULL};
    int same[2] = {1, 1};
    EXPECT_NCCL(ncclInvalidUsage, nc.CommInitAll(c, 2, same));
    EXPECT(strstr(nc.GetLastError(NULL), "Duplicate GPU") != NULL, "last error: %s", nc.GetLastError(NULL));
    EXPECT(c[0] == NULL && c[1] == NULL, "InitAll failed but gave communicators");
    ncclUniqueId id;
    NK(nc.GetUniqueId(&id));
    CK(cu.CtxSetCurrent(g_ctx[2]));
    NK(nc.GroupStart());
    NK(nc.CommInitRank(&c[0], 2, id, 0));
    NK(nc.CommInitRank(&c[1], 2, id, 1));
    EXPECT_NCCL(ncclInvalidUsage, nc.GroupEnd());
    EXPECT(strstr(nc.GetLastError(NULL), "Duplicate GPU") != NULL, "last error: %s", nc.GetLastError(NULL));
    NK(nc.CommDestroy(c[0]));
    NK(nc.CommDestroy(c[1]));
    int bad[1] = {NDEV};
    EXPECT_NCCL(ncclInvalidArgument, nc.CommInitAll(c, 1, bad));
    EXPECT_NCCL(ncclInvalidArgument, nc.CommInitAll(c, 0, NULL));

    /* bad init arguments, and ids */
    NK(nc.GetUniqueId(&id));
    EXPECT_NCCL(ncclInvalidArgument, nc.CommInitRank(&c[0], 4, id, 4));
    EXPECT_NCCL(ncclInvalidArgument, nc.CommInitRank(&c[0], 0, id, 0));
    EXPECT_NCCL(ncclInvalidArgument, nc.CommInitRank(NULL, 1, id, 0));
    ncclUniqueId other = id;
    int32_t pid;
    memcpy(&pid, other.internal + 8, sizeof pid);
    pid ^= 0x40000000;
    memcpy(other.internal + 8, &pid, sizeof pid);
    EXPECT_NCCL(ncclInvalidUsage, nc.CommInitRank(&c[0], 1, other, 0));
    EXPECT(strstr(nc.GetLastError(NULL), "another process") != NULL, "last error: %s", nc.GetLastError(NULL));
    memset(&other, 0, sizeof other);
    EXPECT_NCCL(ncclInvalidUsage, nc.CommInitRank(&c[0], 1, other, 0));

    /* one rank of two never comes: the init gives up (ACLRT_FAKE_NCCL_INIT_TIMEOUT_MS) */
    double t0 = now_s();
    EXPECT_NCCL(ncclSystemError, nc.CommInitRank(&c[0], 2, id, 0));
    EXPECT(c[0] == NULL, "a failed init gave a communicator");
    EXPECT(now_s() - t0 < 20.0, "the init waited %.1f s", now_s() - t0);
    /* a single rank */
    NK(nc.GetUniqueId(&id));
    NK(nc.CommInitRank(&c[0], 1, id, 0));
    NK(nc.CommDestroy(c[0]));
}

/* A rank whose peers never come: ncclCommAbort releases it; the exec timeout bounds another. */
static void abort_and_timeout(void)
{
    ncclComm_t c[2];
    CUstream s[2];
    int32_t *b[2];
    int devs[2] = {0, 1};
    NK(nc.CommInitAll(c, 2, devs));
    for (int r = 0; r < 2; r++) {
        CK(cu.CtxSetCurrent(g_ctx[r]));
        CK(cu.StreamCreateWithPriority(&s[r], 1, 0));
        b[r] = dalloc(64);
    }
    CK(cu.CtxSetCurrent(g_ctx[0]));
    NK(nc.AllReduce(b[0], b[0], 4, ncclInt32, ncclSum, c[0], s[0]));
    usleep(200 * 1000);
    EXPECT(cu.StreamQuery(s[0]) == 600, "the lone allreduce finished"); /* CUDA_ERROR_NOT_READY */
    double t0 = now_s();
    NK(nc.CommAbort(c[0]));
    CK(cu.StreamSynchronize(s[0]));
    EXPECT(now_s() - t0 < 5.0, "abort released the stream after %.1f s", now_s() - t0);
    /* the peer comes late: the aborted rank's part was withdrawn, and nothing releases it (as NCCL's kernel, it
     * waits for a peer that will never come) but its own exec timeout: ncclSystemError */
    CK(cu.CtxSetCurrent(g_ctx[1]));
    NK(nc.AllReduce(b[1], b[1], 4, ncclInt32, ncclSum, c[1], s[1]));
    usleep(200 * 1000);
    EXPECT(cu.StreamQuery(s[1]) == 600, "the peer of an aborted rank was released"); /* CUDA_ERROR_NOT_READY */
    CK(cu.StreamSynchronize(s[1]));
    ncclResult_t ae;
    NK(nc.CommGetAsyncError(c[1], &ae));
    EXPECT(ae == ncclSystemError, "peer of an aborted rank: async error %d", ae);
    EXPECT(strlen(nc.GetLastError(c[1])) > 0, "no text for the async error");
    NK(nc.CommDestroy(c[1]));

    /* a lone operation times out (ACLRT_FAKE_NCCL_EXEC_TIMEOUT_MS): ncclSystemError */
    NK(nc.CommInitAll(c, 2, devs));
    CK(cu.CtxSetCurrent(g_ctx[1]));
    NK(nc.Send(b[1], 4, ncclInt32, 0, c[1], s[1]));
    t0 = now_s();
    CK(cu.StreamSynchronize(s[1]));
    EXPECT(now_s() - t0 < 30.0, "the timeout took %.1f s", now_s() - t0);
    NK(nc.CommGetAsyncError(c[1], &ae));
    EXPECT(ae == ncclSystemError, "timed out: async error %d", ae);
    NK(nc.CommGetAsyncError(c[0], &ae));
    EXPECT(ae == ncclSuccess, "the other rank's async error %d", ae);
    NK(nc.CommAbort(c[0]));
    NK(nc.CommDestroy(c[1]));
    for (int r = 0; r < 2; r++) {
        CK(cu.CtxSetCurrent(g_ctx[r]));
        dfree(b[r]);
        CK(cu.StreamDestroy(s[r]));
    }
}

/* ------------------------------------------------------------------------
 * Ranks in several processes: this program again, spawned with --child
 * ------------------------------------------------------------------------ */

static char g_libs[2][4096];

static void id_to_hex(const ncclUniqueId *id, char *hex)
{
    for (int i = 0; i < 128; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)id->internal[i]);
}

static void hex_to_id(const char *hex, ncclUniqueId *id)
{
    for (int i = 0; i < 128; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        id->internal[i] = (char)v;
    }
}

/* This program as a child process of the role; its pid. */
static pid_t spawn_child(const char *role, int rank, int nranks, int dev, const ncclUniqueId *id)
{
    char hex[257], a[3][16];
    id_to_hex(id, hex);
    snprintf(a[0], sizeof a[0], "%d", rank);
    snprintf(a[1], sizeof a[1], "%d", nranks);
    snprintf(a[2], sizeof a[2], "%d", dev);
    char *argv[] = {"check_nccl", g_libs[0], g_libs[1], "--child", (char *)role, a[0], a[1], a[2], hex, NULL};
    extern char **environ;
    pid_t pid;
    int e = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    if (e != 0)
        FAILED("posix_spawn: %s", strerror(e));
    return pid;
}

/* A child's exit status (60 s at most, then it is killed: a failure). */
static int reap(pid_t pid)
{
    int st = 0;
    for (int i = 0; i < 6000; i++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    FAILED("child %d did not end in 60 s", (int)pid);
}

/*
 * One rank of a communicator of several processes: every collective and a
 * ring of sends in a group, each result checked. Rank 0 has 1e8 and the
 * others 1.0 in a float sum: in rank order 1e8 absorbs each 1.0.
 */
#define M 257
static void proc_rank(int r, int n, int dev, const ncclUniqueId *id)
{
    CK(cu.CtxSetCurrent(g_ctx[dev]));
    ncclComm_t c;
    NK(nc.CommInitRank(&c, n, *id, r));
    int v;
    NK(nc.CommUserRank(c, &v));
    EXPECT(v == r, "rank %d", v);
    CUstream s;
    CK(cu.StreamCreateWithPriority(&s, 1, 0));
    int32_t *a = dalloc(M * 4), *sum = dalloc(M * 4), *bc = dalloc(M * 4), *g = dalloc((size_t)n * M * 4),
            *rsin = dalloc((size_t)n * M * 4), *rs = dalloc(M * 4), *red = dalloc(M * 4), *in = dalloc(M * 4);
    float *f = dalloc(M * 4);
    int32_t h[8 * M];
    float hf[M];
    for (int i = 0; i < M; i++)
        h[i] = 1000 * r + i;
    h2d(a, h, M * 4);
    for (int i = 0; i < M; i++)
        h[i] = r == 2 % n ? 7 * i : -1;
    h2d(bc, h, M * 4);
    for (int i = 0; i < n * M; i++)
        h[i] = (i * 7 + r * 13) % 101;
    h2d(rsin, h, (size_t)n * M * 4);
    for (int i = 0; i < M; i++)
        hf[i] = r == 0 ? 1e8f : 1.0f;
    h2d(f, hf, M * 4);
    NK(nc.AllReduce(a, sum, M, ncclInt32, ncclSum, c, s));
    NK(nc.AllReduce(f, f, M, ncclFloat32, ncclSum, c, s));
    NK(nc.Broadcast(bc, bc, M, ncclInt32, 2 % n, c, s));
    NK(nc.AllGather(a, g, M, ncclInt32, c, s));
    NK(nc.ReduceScatter(rsin, rs, M, ncclInt32, ncclMax, c, s));
    NK(nc.Reduce(a, red, M, ncclInt32, ncclMin, n - 1, c, s));
    NK(nc.GroupStart());
    NK(nc.Send(a, M, ncclInt32, (r + 1) % n, c, s));
    NK(nc.Recv(in, M, ncclInt32, (r + n - 1) % n, c, s));
    NK(nc.GroupEnd());
    CK(cu.StreamSynchronize(s));
    ncclResult_t ae;
    NK(nc.CommGetAsyncError(c, &ae));
    EXPECT(ae == ncclSuccess, "rank %d: async error %d (%s)", r, ae, nc.GetLastError(c));
    d2h(h, sum, M * 4);
    for (int i = 0; i < M; i++)
        EXPECT(h[i] == 1000 * n * (n - 1) / 2 + n * i, "rank %d: allreduce[%d] = %d", r, i, h[i]);
    d2h(hf, f, M * 4);
    for (int i = 0; i < M; i++)
        EXPECT(hf[i] == 1e8f, "rank %d: float allreduce[%d] = %.1f, not in rank order", r, i, (double)hf[i]);
    d2h(h, bc, M * 4);
    for (int i = 0; i < M; i++)
        EXPECT(h[i] == 7 * i, "rank %d: broadcast[%d] = %d", r, i, h[i]);
    d2h(h, g, (size_t)n * M * 4);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < M; i++)
            EXPECT(h[k * M + i] == 1000 * k + i, "rank %d: allgather[%d][%d] = %d", r, k, i, h[k * M + i]);
    d2h(h, rs, M * 4);
    for (int i = 0; i < M; i++) {
        int want = -1, at = r * M + i;
        for (int k = 0; k < n; k++)
            want = (at * 7 + k * 13) % 101 > want ? (at * 7 + k * 13) % 101 : want;
        EXPECT(h[i] == want, "rank %d: reducescatter[%d] = %d, expected %d", r, i, h[i], want);
    }
    if (r == n - 1) {
        d2h(h, red, M * 4);
        for (int i = 0; i < M; i++)
            EXPECT(h[i] == i, "rank %d: reduce[%d] = %d", r, i, h[i]);
    }
    d2h(h, in, M * 4);
    for (int i = 0; i < M; i++)
        EXPECT(h[i] == 1000 * ((r + n - 1) % n) + i, "rank %d: received [%d] = %d", r, i, h[i]);
    NK(nc.CommDestroy(c));
    void *all[] = {a, sum, bc, g, rsin, rs, red, in, f};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        dfree(all[k]);
    CK(cu.StreamDestroy(s));
}

/* A child: `rank R N DEV ID`, `never` (exits without joining), `abort` and `die` (rank R joins, then aborts its
 * communicator / is killed). */
static int child_main(char **argv)
{
    const char *role = argv[0];
    int r = atoi(argv[1]), n = atoi(argv[2]), dev = atoi(argv[3]);
    ncclUniqueId id;
    hex_to_id(argv[4], &id);
    if (strcmp(role, "rank") == 0) {
        proc_rank(r, n, dev, &id);
        return 0;
    }
    if (strcmp(role, "never") == 0)
        return 0;
    CK(cu.CtxSetCurrent(g_ctx[dev]));
    ncclComm_t c;
    NK(nc.CommInitRank(&c, n, id, r));
    usleep(300 * 1000); /* the parent's operation waits for this rank */
    if (strcmp(role, "die") == 0)
        raise(SIGKILL);
    NK(nc.CommAbort(c));
    return 0;
}

struct proc_arg {
    int r, n, dev;
    ncclUniqueId id;
};

static void *proc_thread(void *arg)
{
    struct proc_arg *p = (struct proc_arg *)arg;
    proc_rank(p->r, p->n, p->dev, &p->id);
    return NULL;
}

/* No rendezvous or segment of this process's ids left in /dev/shm. */
static void no_shm_left(void)
{
    char prefix[64], path[512];
    snprintf(prefix, sizeof prefix, "fakenccl-%d-", (int)getpid());
    for (int i = 0; i < 100; i++) {
        bool left = false;
        DIR *d = opendir("/dev/shm");
        if (d == NULL)
            return;
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
                left = true;
                snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
            }
        closedir(d);
        if (!left)
            return;
        usleep(10000);
    }
    FAILED("%s left behind", path);
}

static void processes(void)
{
    /* four ranks: two threads of this process (devices 0, 1), two child processes (devices 0, 1 too: other
     * processes are as other hosts, no duplicate GPU) */
    ncclUniqueId id;
    NK(nc.GetUniqueId(&id));
    pid_t kids[2] = {spawn_child("rank", 2, 4, 0, &id), spawn_child("rank", 3, 4, 1, &id)};
    struct proc_arg args[2] = {{.r = 0, .n = 4, .dev = 0, .id = id}, {.r = 1, .n = 4, .dev = 1, .id = id}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, proc_thread, &args[i]) != 0)
            FAILED("pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        int rc = reap(kids[i]);
        EXPECT(rc == 0, "the child of rank %d exited %d", i + 2, rc);
    }
    /* two processes of one rank each, the id made by this one */
    NK(nc.GetUniqueId(&id));
    pid_t kid = spawn_child("rank", 1, 2, 3, &id);
    struct proc_arg one = {.r = 0, .n = 2, .dev = 3, .id = id};
    proc_thread(&one);
    EXPECT(reap(kid) == 0, "the child of rank 1 failed");
}

static void processes_that_fail(void)
{
    ncclUniqueId id;
    ncclComm_t c = NULL;
    /* a process that never joins: the init gives up (ACLRT_FAKE_NCCL_INIT_TIMEOUT_MS) */
    NK(nc.GetUniqueId(&id));
    pid_t kid = spawn_child("never", 1, 2, 1, &id);
    CK(cu.CtxSetCurrent(g_ctx[0]));
    double t0 = now_s();
    EXPECT_NCCL(ncclSystemError, nc.CommInitRank(&c, 2, id, 0));
    EXPECT(c == NULL && now_s() - t0 < 20.0, "init without the other process: %.1f s", now_s() - t0);
    EXPECT(reap(kid) == 0, "the child that never joins failed");

    /* the peer process aborts its communicator, or is killed: this rank's operation waits on (as NCCL's kernel)
     * until it times out (ACLRT_FAKE_NCCL_EXEC_TIMEOUT_MS): ncclSystemError */
    const char *roles[2] = {"abort", "die"};
    for (int k = 0; k < 2; k++) {
        NK(nc.GetUniqueId(&id));
        kid = spawn_child(roles[k], 1, 2, 0, &id);
        CK(cu.CtxSetCurrent(g_ctx[0]));
        NK(nc.CommInitRank(&c, 2, id, 0));
        CUstream s;
        CK(cu.StreamCreateWithPriority(&s, 1, 0));
        int32_t *b = dalloc(64);
        t0 = now_s();
        NK(nc.AllReduce(b, b, 4, ncclInt32, ncclSum, c, s));
        CK(cu.StreamSynchronize(s));
        double waited = now_s() - t0;
        ncclResult_t ae;
        NK(nc.CommGetAsyncError(c, &ae));
        EXPECT(ae == ncclSystemError, "peer process %s: async error %d (%s)", roles[k], ae, nc.GetLastError(c));
        EXPECT(waited < 30.0, "peer process %s: waited %.1f s", roles[k], waited);
        NK(nc.CommDestroy(c));
        dfree(b);
        CK(cu.StreamDestroy(s));
        int rc = reap(kid);
        EXPECT(rc == (k == 0 ? 0 : 128 + SIGKILL), "the child that %ss exited %d", roles[k], rc);
    }
    no_shm_left();
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 9 && strcmp(argv[3], "--child") == 0)) {
        fprintf(stderr, "usage: check_nccl LIBCUDA_FAKE LIBNCCL_FAKE\n");
        return 2;
    }
    snprintf(g_libs[0], sizeof g_libs[0], "%s", argv[1]);
    snprintf(g_libs[1], sizeof g_libs[1], "%s", argv[2]);
    setenv("ACLRT_CUDA_LIBRARY", argv[1], 1);
    void *hc = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (hc == NULL)
        FAILED("%s", dlerror());
    void *hn = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (hn == NULL)
        FAILED("%s", dlerror());
#define CU(f, name) *(void **)&cu.f = sym(hc, name)
    CU(Init, "cuInit");
    CU(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    CU(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    CU(CtxSetCurrent, "cuCtxSetCurrent");
    CU(StreamCreateWithPriority, "cuStreamCreateWithPriority");
    CU(StreamDestroy, "cuStreamDestroy_v2");
    CU(StreamSynchronize, "cuStreamSynchronize");
    CU(StreamQuery, "cuStreamQuery");
    CU(MemAlloc, "cuMemAlloc_v2");
    CU(MemFree, "cuMemFree_v2");
    CU(Memcpy, "cuMemcpy");
    CU(StreamBeginCapture, "cuStreamBeginCapture_v2");
    CU(StreamEndCapture, "cuStreamEndCapture");
    CU(GraphDestroy, "cuGraphDestroy");
#define NC(f, name) *(void **)&nc.f = sym(hn, name)
    NC(GetVersion, "ncclGetVersion");
    NC(GetUniqueId, "ncclGetUniqueId");
    NC(CommInitRank, "ncclCommInitRank");
    NC(CommInitAll, "ncclCommInitAll");
    NC(CommSplit, "ncclCommSplit");
    NC(CommDestroy, "ncclCommDestroy");
    NC(CommAbort, "ncclCommAbort");
    NC(CommFinalize, "ncclCommFinalize");
    NC(CommGetAsyncError, "ncclCommGetAsyncError");
    NC(CommCount, "ncclCommCount");
    NC(CommCuDevice, "ncclCommCuDevice");
    NC(CommUserRank, "ncclCommUserRank");
    NC(GetErrorString, "ncclGetErrorString");
    NC(GetLastError, "ncclGetLastError");
    NC(AllReduce, "ncclAllReduce");
    NC(Broadcast, "ncclBroadcast");
    NC(Reduce, "ncclReduce");
    NC(AllGather, "ncclAllGather");
    NC(ReduceScatter, "ncclReduceScatter");
    NC(Send, "ncclSend");
    NC(Recv, "ncclRecv");
    NC(GroupStart, "ncclGroupStart");
    NC(GroupEnd, "ncclGroupEnd");
    NC(ops, "fakenccl_ops");
    NC(comms, "fakenccl_comms");

    CK(cu.Init(0));
    for (int d = 0; d < NDEV; d++)
        CK(cu.DevicePrimaryCtxRetain(&g_ctx[d], d));
    if (argc == 9)
        return child_main(argv + 4);
    int version;
    NK(nc.GetVersion(&version));
    EXPECT(version >= 21800, "version %d", version);
    EXPECT(strcmp(nc.GetErrorString(ncclInvalidUsage), "invalid usage (run with NCCL_DEBUG=WARN for details)") == 0,
           "error string");

    NK(nc.GetUniqueId(&g_id));
    pthread_barrier_init(&g_barrier, NULL, NDEV);
    pthread_t t[NDEV];
    for (int r = 0; r < NDEV; r++)
        if (pthread_create(&t[r], NULL, rank_main, (void *)(intptr_t)r) != 0)
            FAILED("pthread_create");
    for (int r = 0; r < NDEV; r++)
        pthread_join(t[r], NULL);
    pthread_barrier_destroy(&g_barrier);
    printf("check_nccl: four ranks on four threads: ok\n");

    one_thread_drives_all();
    printf("check_nccl: one thread drives four ranks (InitAll, groups), bad arguments: ok\n");
    group_init();
    refusals();
    printf("check_nccl: init in a group, duplicate GPU, bad ids, init timeout: ok\n");
    abort_and_timeout();
    printf("check_nccl: abort releases a waiting rank, exec timeout: ok\n");
    processes();
    printf("check_nccl: ranks in three processes and two threads, every collective, a ring of sends: ok\n");
    processes_that_fail();
    printf("check_nccl: a process that never joins, a peer process that aborts, one that dies: ok\n");

    /* everything given back: queued work done, no communicator left */
    for (int i = 0; i < 500 && nc.comms() != 0; i++)
        usleep(10000);
    EXPECT(nc.comms() == 0, "%d communicators left", nc.comms());
    EXPECT(nc.ops() > 0, "no operation counted");
    for (int d = 0; d < NDEV; d++)
        CK(cu.DevicePrimaryCtxRelease(d));
    printf("check_nccl: all passed (%llu operations)\n", nc.ops());
    return 0;
}
