/*
 * backends/cuda/cuda_nccl.h - HCCL's communicators and operations on the
 * GPUs through NCCL (the backend's collective engine: backend.h, `coll`).
 *
 *   - NCCL is libnccl.so.2 (ACLRT_NCCL_LIBRARY names another file: the
 *     tests' double, tests/nccl_fake/), opened with dlopen at the first
 *     communicator, as the driver is: aclrt needs no NCCL to build. The few
 *     types and entry points used are declared here from NCCL's documented
 *     names and values (NCCL 2.x's header).
 *   - A communicator is an ncclComm_t on its device's GPU (made with the
 *     device's primary context current, as NCCL's own cudaSetDevice would),
 *     with 4 bytes of the GPU's memory for HcclBarrier.
 *   - An operation is issued by the stream's holder when the stream reaches
 *     it (impl/exec/native.h), onto the stream's CUstream, so it runs in
 *     order with the stream's kernels and copies on the GPU; data never
 *     passes through the host. What NCCL has no call for is built from its
 *     calls inside one ncclGroupStart/End: AllGatherV, Scatter, AlltoAll(V,
 *     VC) and batches of sends and receives from ncclSend/ncclRecv (a
 *     rank's own block: cuMemcpyAsync), ReduceScatterV from one ncclReduce
 *     per block, HcclBarrier from a 1-element ncclAllReduce.
 *   - Data types: NCCL's own for reductions; moving data is bytes
 *     (ncclInt8), so every HCCL type moves. Reductions of 16-bit integers,
 *     int128 and the 8-bit formats are refused at the call
 *     (impl/hccl/hccl_backend.h): NCCL has no such reduction.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_NCCL_H
#define ACLRT_BACKENDS_CUDA_CUDA_NCCL_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/hccl/hccl_abi.h"
#include "../../impl/hccl/hccl_reduce.h"
#include "../backend.h"
#include "cuda_device.h"
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACLRT_NCCL_DEFAULT_LIBRARY "libnccl.so.2"

/* NCCL's types and values, as its header gives them. */
typedef struct aclrt_ncclComm *aclrt_ncclComm_t;
typedef int aclrt_ncclResult_t;
typedef struct {
    char internal[ACLRT_BACKEND_COLL_ID];
} aclrt_ncclUniqueId;
enum {
    ACLRT_NCCL_SUCCESS = 0,
    ACLRT_NCCL_INT8 = 0,
    ACLRT_NCCL_UINT8 = 1,
    ACLRT_NCCL_INT32 = 2,
    ACLRT_NCCL_UINT32 = 3,
    ACLRT_NCCL_INT64 = 4,
    ACLRT_NCCL_UINT64 = 5,
    ACLRT_NCCL_FLOAT16 = 6,
    ACLRT_NCCL_FLOAT32 = 7,
    ACLRT_NCCL_FLOAT64 = 8,
    ACLRT_NCCL_BFLOAT16 = 9,
    ACLRT_NCCL_SUM = 0,
    ACLRT_NCCL_PROD = 1,
    ACLRT_NCCL_MAX = 2,
    ACLRT_NCCL_MIN = 3,
};

/* return type, name, parameters */
#define ACLRT_NCCL_FUNCTIONS(X)                                                                                      \
    X(aclrt_ncclResult_t, ncclGetVersion, (int *version))                                                           \
    X(const char *, ncclGetErrorString, (aclrt_ncclResult_t r))                                                     \
    X(aclrt_ncclResult_t, ncclGetUniqueId, (aclrt_ncclUniqueId * id))                                               \
    X(aclrt_ncclResult_t, ncclCommInitRank, (aclrt_ncclComm_t * comm, int nranks, aclrt_ncclUniqueId id, int rank)) \
    X(aclrt_ncclResult_t, ncclCommInitAll, (aclrt_ncclComm_t * comms, int ndev, const int *devlist))                \
    X(aclrt_ncclResult_t, ncclCommDestroy, (aclrt_ncclComm_t comm))                                                 \
    X(aclrt_ncclResult_t, ncclCommAbort, (aclrt_ncclComm_t comm))                                                   \
    X(aclrt_ncclResult_t, ncclCommGetAsyncError, (aclrt_ncclComm_t comm, aclrt_ncclResult_t * error))               \
    X(aclrt_ncclResult_t, ncclAllReduce,                                                                            \
      (const void *send, void *recv, size_t count, int type, int op, aclrt_ncclComm_t comm, aclrt_CUstream stream)) \
    X(aclrt_ncclResult_t, ncclBroadcast,                                                                            \
      (const void *send, void *recv, size_t count, int type, int root, aclrt_ncclComm_t comm,                      \
       aclrt_CUstream stream))                                                                                      \
    X(aclrt_ncclResult_t, ncclReduce,                                                                               \
      (const void *send, void *recv, size_t count, int type, int op, int root, aclrt_ncclComm_t comm,              \
       aclrt_CUstream stream))                                                                                      \
    X(aclrt_ncclResult_t, ncclAllGather,                                                                            \
      (const void *send, void *recv, size_t count, int type, aclrt_ncclComm_t comm, aclrt_CUstream stream))         \
    X(aclrt_ncclResult_t, ncclReduceScatter,                                                                        \
      (const void *send, void *recv, size_t count, int type, int op, aclrt_ncclComm_t comm, aclrt_CUstream stream)) \
    X(aclrt_ncclResult_t, ncclSend,                                                                                 \
      (const void *send, size_t count, int type, int peer, aclrt_ncclComm_t comm, aclrt_CUstream stream))           \
    X(aclrt_ncclResult_t, ncclRecv,                                                                                 \
      (void *recv, size_t count, int type, int peer, aclrt_ncclComm_t comm, aclrt_CUstream stream))                 \
    X(aclrt_ncclResult_t, ncclGroupStart, (void))                                                                   \
    X(aclrt_ncclResult_t, ncclGroupEnd, (void))

#define ACLRT_NCCL_FN_TYPE(ret, name, params) typedef ret(*aclrt_nccl_##name##_fn) params;
ACLRT_NCCL_FUNCTIONS(ACLRT_NCCL_FN_TYPE)
#undef ACLRT_NCCL_FN_TYPE

static struct {
    pthread_mutex_t lock;
    void *lib;     /* NULL until opened (then kept for the process: NCCL's threads outlive a communicator) */
    int version;   /* NCCL_VERSION_CODE of the library */
    char why[ACLRT_BACKEND_COLL_WHY]; /* why it could not be opened (tried once) */
    bool tried;
#define ACLRT_NCCL_FN_MEMBER(ret, name, params) aclrt_nccl_##name##_fn name;
    ACLRT_NCCL_FUNCTIONS(ACLRT_NCCL_FN_MEMBER)
#undef ACLRT_NCCL_FN_MEMBER
} aclrt_nccl = {.lock = PTHREAD_MUTEX_INITIALIZER};

/*
 * A communicator of ours: NCCL's, its device, and its barrier's word on the
 * GPU. An abort (the exec timeout's watch, on its own thread) and the
 * issues (the streams' holders) take `lock`: NCCL is never called on a
 * communicator it freed.
 */
struct aclrt_cuda_nccl_comm {
    aclrt_ncclComm_t comm;
    struct aclrt_cuda_device *cd;
    aclrt_CUdeviceptr word;
    pthread_mutex_t lock;
    bool aborted; /* ncclCommAbort freed `comm` (lock) */
};

/* NCCL's result as a line: its name and NCCL's own words. */
static const char *aclrt_nccl_text(aclrt_ncclResult_t r)
{
    static const char *const names[] = {"ncclSuccess",        "ncclUnhandledCudaError", "ncclSystemError",
                                        "ncclInternalError",  "ncclInvalidArgument",    "ncclInvalidUsage",
                                        "ncclRemoteError",    "ncclInProgress"};
    return r >= 0 && r < (int)(sizeof names / sizeof names[0]) ? names[r] : "an unknown ncclResult_t";
}

/* HCCL's code for an NCCL failure, with the line in why. */
static int aclrt_nccl_fail(aclrt_ncclResult_t r, const char *call, char *why)
{
    const char *words = aclrt_nccl.ncclGetErrorString != NULL ? aclrt_nccl.ncclGetErrorString(r) : NULL;
    snprintf(why, ACLRT_BACKEND_COLL_WHY, "%s failed: %s (%d)%s%s", call, aclrt_nccl_text(r), r,
             words != NULL ? ": " : "", words != NULL ? words : "");
    switch (r) {
    case 4: /* ncclInvalidArgument */
    case 5: return HCCL_E_PARA; /* ncclInvalidUsage */
    case 6: return HCCL_E_REMOTE; /* ncclRemoteError */
    case 1: return HCCL_E_RUNTIME; /* ncclUnhandledCudaError */
    case 2: return HCCL_E_SYSCALL; /* ncclSystemError */
    default: return HCCL_E_INTERNAL;
    }
}

static int aclrt_nccl_open(char *why)
{
    pthread_mutex_lock(&aclrt_nccl.lock);
    if (!aclrt_nccl.tried) {
        aclrt_nccl.tried = true;
        const char *path = getenv("ACLRT_NCCL_LIBRARY");
        if (path == NULL || path[0] == '\0')
            path = ACLRT_NCCL_DEFAULT_LIBRARY;
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        const char *missing = NULL;
        if (lib == NULL) {
            const char *e = dlerror();
            snprintf(aclrt_nccl.why, sizeof aclrt_nccl.why,
                     "cannot open NCCL %s (%s): install NCCL, or set ACLRT_NCCL_LIBRARY to its libnccl.so.2", path,
                     e != NULL ? e : "dlopen failed");
        } else {
#define ACLRT_NCCL_FN_LOAD(ret, name, params)                                                                             \
    {                                                                                                              \
        void *f = dlsym(lib, #name);                                                                               \
        if (f == NULL && missing == NULL)                                                                          \
            missing = #name;                                                                                       \
        memcpy(&aclrt_nccl.name, &f, sizeof f);                                                                    \
    }
            ACLRT_NCCL_FUNCTIONS(ACLRT_NCCL_FN_LOAD)
#undef ACLRT_NCCL_FN_LOAD
            if (missing != NULL) {
                snprintf(aclrt_nccl.why, sizeof aclrt_nccl.why, "NCCL %s has no %s (too old? NCCL 2.x is needed)",
                         path, missing);
                dlclose(lib);
            } else if (aclrt_nccl.ncclGetVersion(&aclrt_nccl.version) != ACLRT_NCCL_SUCCESS) {
                snprintf(aclrt_nccl.why, sizeof aclrt_nccl.why, "NCCL %s does not say its version", path);
                dlclose(lib);
            } else {
                aclrt_nccl.lib = lib;
            }
        }
    }
    bool ok = aclrt_nccl.lib != NULL;
    if (!ok)
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "%s", aclrt_nccl.why);
    pthread_mutex_unlock(&aclrt_nccl.lock);
    return ok ? HCCL_SUCCESS : HCCL_E_UNAVAIL;
}

static int aclrt_nccl_unique_id(uint8_t *id, char *why)
{
    aclrt_ncclUniqueId u;
    aclrt_ncclResult_t r = aclrt_nccl.ncclGetUniqueId(&u);
    if (r != ACLRT_NCCL_SUCCESS)
        return aclrt_nccl_fail(r, "ncclGetUniqueId", why);
    memcpy(id, u.internal, sizeof u.internal);
    return HCCL_SUCCESS;
}

/* Our record of an NCCL communicator on cd, with its barrier's word; NULL (why) when the GPU has no memory. */
static struct aclrt_cuda_nccl_comm *aclrt_nccl_wrap(struct aclrt_cuda_device *cd, aclrt_ncclComm_t comm, char *why)
{
    struct aclrt_cuda_nccl_comm *w = (struct aclrt_cuda_nccl_comm *)calloc(1, sizeof *w);
    aclrt_CUresult r = w != NULL ? aclrt_cuda_enter(cd->ctx) : ACLRT_CUDA_ERROR_OUT_OF_MEMORY;
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemAlloc(&w->word, sizeof(int32_t));
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuMemsetD8(w->word, 0, sizeof(int32_t));
    if (r != ACLRT_CUDA_SUCCESS) {
        if (w != NULL && w->word != 0)
            (void)aclrt_cu->cuMemFree(w->word);
        free(w);
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "no GPU memory for the communicator's barrier (CUDA error %d)", (int)r);
        return NULL;
    }
    w->comm = comm;
    w->cd = cd;
    pthread_mutex_init(&w->lock, NULL);
    return w;
}

static int aclrt_nccl_comm_init(struct aclrt_device *dev, uint32_t nranks, const uint8_t *id, uint32_t rank,
                                void **comm, char *why)
{
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(dev);
    aclrt_CUresult cr = aclrt_cuda_enter(cd->ctx);
    if (cr != ACLRT_CUDA_SUCCESS) {
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "the device's GPU context cannot be made current (CUDA error %d)",
                 (int)cr);
        return HCCL_E_RUNTIME;
    }
    aclrt_ncclUniqueId u;
    memcpy(u.internal, id, sizeof u.internal);
    aclrt_ncclComm_t c = NULL;
    aclrt_ncclResult_t r = aclrt_nccl.ncclCommInitRank(&c, (int)nranks, u, (int)rank);
    if (r != ACLRT_NCCL_SUCCESS)
        return aclrt_nccl_fail(r, "ncclCommInitRank", why);
    struct aclrt_cuda_nccl_comm *w = aclrt_nccl_wrap(cd, c, why);
    if (w == NULL) {
        aclrt_nccl.ncclCommDestroy(c);
        return HCCL_E_MEMORY;
    }
    *comm = w;
    return HCCL_SUCCESS;
}

static void aclrt_nccl_comm_abort(void *comm)
{
    struct aclrt_cuda_nccl_comm *w = (struct aclrt_cuda_nccl_comm *)comm;
    pthread_mutex_lock(&w->lock);
    if (!w->aborted)
        aclrt_nccl.ncclCommAbort(w->comm);
    w->aborted = true;
    pthread_mutex_unlock(&w->lock);
}

static void aclrt_nccl_comm_free(void *comm)
{
    struct aclrt_cuda_nccl_comm *w = (struct aclrt_cuda_nccl_comm *)comm;
    if (!w->aborted)
        aclrt_nccl.ncclCommDestroy(w->comm);
    if (aclrt_cuda_enter(w->cd->ctx) == ACLRT_CUDA_SUCCESS)
        (void)aclrt_cu->cuMemFree(w->word);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

static int aclrt_nccl_comm_init_all(struct aclrt_device *const *devs, uint32_t n, void **comms, char *why)
{
    int *gpus = (int *)calloc(n, sizeof *gpus);
    aclrt_ncclComm_t *cs = (aclrt_ncclComm_t *)calloc(n, sizeof *cs);
    if (gpus == NULL || cs == NULL) {
        free(gpus);
        free(cs);
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "out of memory");
        return HCCL_E_MEMORY;
    }
    for (uint32_t i = 0; i < n; i++)
        gpus[i] = (int)aclrt_cuda_device_of(devs[i])->gpu;
    aclrt_ncclResult_t r = aclrt_nccl.ncclCommInitAll(cs, (int)n, gpus);
    free(gpus);
    int rc = r == ACLRT_NCCL_SUCCESS ? HCCL_SUCCESS : aclrt_nccl_fail(r, "ncclCommInitAll", why);
    for (uint32_t i = 0; rc == HCCL_SUCCESS && i < n; i++)
        if ((comms[i] = aclrt_nccl_wrap(aclrt_cuda_device_of(devs[i]), cs[i], why)) == NULL) {
            for (uint32_t k = 0; k < i; k++)
                aclrt_nccl_comm_free(comms[k]);
            for (uint32_t k = i; k < n; k++)
                aclrt_nccl.ncclCommDestroy(cs[k]);
            rc = HCCL_E_MEMORY;
        }
    free(cs);
    return rc;
}

static int aclrt_nccl_comm_error(void *comm, char *why)
{
    struct aclrt_cuda_nccl_comm *w = (struct aclrt_cuda_nccl_comm *)comm;
    aclrt_ncclResult_t e = ACLRT_NCCL_SUCCESS, r = ACLRT_NCCL_SUCCESS;
    pthread_mutex_lock(&w->lock);
    if (!w->aborted)
        r = aclrt_nccl.ncclCommGetAsyncError(w->comm, &e);
    pthread_mutex_unlock(&w->lock);
    if (r != ACLRT_NCCL_SUCCESS)
        return aclrt_nccl_fail(r, "ncclCommGetAsyncError", why);
    if (e == ACLRT_NCCL_SUCCESS || e == 7 /* ncclInProgress */)
        return HCCL_SUCCESS;
    return aclrt_nccl_fail(e, "an operation in flight", why);
}

/*
 * A sub-communicator's id: its rank 0 makes it and sends it to each other
 * member over the parent with ncclSend/ncclRecv (only the two ranks of a
 * pair take part, so the parent's other ranks need not call), on a stream
 * of its own, 128 bytes of the GPU's memory. Past the deadline the
 * transfer is left as it is, its stream and buffer with it (the peer may
 * still send into them): HCCL_E_TIMEOUT.
 */
static int aclrt_nccl_sub_id(void *comm, const uint32_t *members, uint32_t n, uint32_t me, uint64_t deadline_ns,
                             uint8_t *id, char *why)
{
    struct aclrt_cuda_nccl_comm *w = (struct aclrt_cuda_nccl_comm *)comm;
    if (me == 0) {
        int rc = aclrt_nccl_unique_id(id, why);
        if (rc != HCCL_SUCCESS || n == 1)
            return rc;
    }
    aclrt_CUstream st = NULL;
    aclrt_CUdeviceptr buf = 0;
    aclrt_CUresult cr = aclrt_cuda_enter(w->cd->ctx);
    if (cr == ACLRT_CUDA_SUCCESS)
        cr = aclrt_cu->cuStreamCreateWithPriority(&st, ACLRT_CU_STREAM_NON_BLOCKING, 0);
    if (cr == ACLRT_CUDA_SUCCESS)
        cr = aclrt_cu->cuMemAlloc(&buf, ACLRT_BACKEND_COLL_ID);
    if (cr == ACLRT_CUDA_SUCCESS && me == 0)
        cr = aclrt_cu->cuMemcpy(buf, (aclrt_CUdeviceptr)(uintptr_t)id, ACLRT_BACKEND_COLL_ID);
    aclrt_ncclResult_t r = ACLRT_NCCL_SUCCESS;
    if (cr == ACLRT_CUDA_SUCCESS) {
        pthread_mutex_lock(&w->lock); /* NCCL's calls on one communicator, one thread at a time */
        if (w->aborted) {
            r = 5; /* ncclInvalidUsage */
        } else {
            r = aclrt_nccl.ncclGroupStart();
            for (uint32_t i = 1; r == ACLRT_NCCL_SUCCESS && i < n; i++)
                if (me == 0)
                    r = aclrt_nccl.ncclSend((const void *)(uintptr_t)buf, ACLRT_BACKEND_COLL_ID, ACLRT_NCCL_INT8,
                                            (int)members[i], w->comm, st);
                else if (i == 1)
                    r = aclrt_nccl.ncclRecv((void *)(uintptr_t)buf, ACLRT_BACKEND_COLL_ID, ACLRT_NCCL_INT8,
                                            (int)members[0], w->comm, st);
            aclrt_ncclResult_t e = aclrt_nccl.ncclGroupEnd();
            r = r != ACLRT_NCCL_SUCCESS ? r : e;
        }
        pthread_mutex_unlock(&w->lock);
    }
    bool late = false;
    while (cr == ACLRT_CUDA_SUCCESS && r == ACLRT_NCCL_SUCCESS &&
           (cr = aclrt_cu->cuStreamQuery(st)) == ACLRT_CUDA_ERROR_NOT_READY) {
        if ((late = aclrt_now_ns() >= deadline_ns))
            break;
        cr = ACLRT_CUDA_SUCCESS;
        sched_yield();
    }
    if (late) {
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "rank 0 of the sub-communicator and this rank did not both come within "
                                              "HCCL_CONNECT_TIMEOUT");
        return HCCL_E_TIMEOUT;
    }
    if (cr == ACLRT_CUDA_SUCCESS && r == ACLRT_NCCL_SUCCESS && me != 0)
        cr = aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)id, buf, ACLRT_BACKEND_COLL_ID);
    if (buf != 0)
        (void)aclrt_cu->cuMemFree(buf);
    if (st != NULL)
        (void)aclrt_cu->cuStreamDestroy(st);
    if (r != ACLRT_NCCL_SUCCESS)
        return aclrt_nccl_fail(r, me == 0 ? "ncclSend (the sub-communicator's id)" : "ncclRecv (the sub-communicator's id)",
                               why);
    if (cr != ACLRT_CUDA_SUCCESS) {
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "passing the sub-communicator's id failed (CUDA error %d)", (int)cr);
        return HCCL_E_RUNTIME;
    }
    return HCCL_SUCCESS;
}

/* NCCL's type for a reduction of HCCL's `type`; -1: NCCL has none (the call refused it: aclrt_nccl_reduces). */
static int aclrt_nccl_type(HcclDataType type)
{
    switch (type) {
    case HCCL_DATA_TYPE_INT8: return ACLRT_NCCL_INT8;
    case HCCL_DATA_TYPE_UINT8: return ACLRT_NCCL_UINT8;
    case HCCL_DATA_TYPE_INT32: return ACLRT_NCCL_INT32;
    case HCCL_DATA_TYPE_UINT32: return ACLRT_NCCL_UINT32;
    case HCCL_DATA_TYPE_INT64: return ACLRT_NCCL_INT64;
    case HCCL_DATA_TYPE_UINT64: return ACLRT_NCCL_UINT64;
    case HCCL_DATA_TYPE_FP16: return ACLRT_NCCL_FLOAT16;
    case HCCL_DATA_TYPE_FP32: return ACLRT_NCCL_FLOAT32;
    case HCCL_DATA_TYPE_FP64: return ACLRT_NCCL_FLOAT64;
    case HCCL_DATA_TYPE_BFP16: return ACLRT_NCCL_BFLOAT16;
    default: return -1;
    }
}

static bool aclrt_nccl_reduces(int type)
{
    return aclrt_nccl_type((HcclDataType)type) >= 0;
}

/* Moves of several peers as one NCCL group: a rank's own block is a copy on the stream. */
struct aclrt_nccl_moves {
    struct aclrt_cuda_nccl_comm *w;
    aclrt_CUstream stream;
    uint32_t rank;
    aclrt_ncclResult_t r;
    aclrt_CUresult cr;
    const char *call;
};

static void aclrt_nccl_send(struct aclrt_nccl_moves *m, const void *buf, size_t bytes, uint32_t peer)
{
    if (m->r != ACLRT_NCCL_SUCCESS || bytes == 0)
        return;
    m->r = aclrt_nccl.ncclSend(buf, bytes, ACLRT_NCCL_INT8, (int)peer, m->w->comm, m->stream);
    m->call = "ncclSend";
}

static void aclrt_nccl_recv(struct aclrt_nccl_moves *m, void *buf, size_t bytes, uint32_t peer)
{
    if (m->r != ACLRT_NCCL_SUCCESS || bytes == 0)
        return;
    m->r = aclrt_nccl.ncclRecv(buf, bytes, ACLRT_NCCL_INT8, (int)peer, m->w->comm, m->stream);
    m->call = "ncclRecv";
}

static void aclrt_nccl_self(struct aclrt_nccl_moves *m, void *dst, const void *src, size_t bytes)
{
    if (m->cr != ACLRT_CUDA_SUCCESS || bytes == 0 || dst == src)
        return;
    m->cr = aclrt_cu->cuMemcpyAsync((aclrt_CUdeviceptr)(uintptr_t)dst, (aclrt_CUdeviceptr)(uintptr_t)src, bytes,
                                    m->stream);
}

/* The group of moves of one operation (a rank's part: what it sends to and receives from each peer). */
static void aclrt_nccl_moves_of(struct aclrt_nccl_moves *m, const struct aclrt_hccl_args *a, uint32_t nranks)
{
    size_t es = aclrt_hccl_type_size(a->type);
    char *send = (char *)a->send, *recv = (char *)a->recv;
    uint32_t me = m->rank, n = nranks;
    switch (a->kind) {
    case ACLRT_HCCL_ALLGATHERV:
        for (uint32_t p = 0; p < n; p++) {
            if (p == me) {
                aclrt_nccl_self(m, recv + a->displs[p] * es, send, a->count * es);
                continue;
            }
            aclrt_nccl_send(m, send, a->count * es, p);
            aclrt_nccl_recv(m, recv + a->displs[p] * es, a->counts[p] * es, p);
        }
        break;
    case ACLRT_HCCL_SCATTER:
        if (me == a->root) {
            for (uint32_t p = 0; p < n; p++)
                if (p == me)
                    aclrt_nccl_self(m, recv, send + (size_t)p * a->count * es, a->count * es);
                else
                    aclrt_nccl_send(m, send + (size_t)p * a->count * es, a->count * es, p);
        } else {
            aclrt_nccl_recv(m, recv, a->count * es, a->root);
        }
        break;
    case ACLRT_HCCL_ALLTOALL:
    case ACLRT_HCCL_ALLTOALLV:
    case ACLRT_HCCL_ALLTOALLVC: {
        size_t rs = aclrt_hccl_type_size(a->recv_type);
        uint64_t sd = 0, rd = 0;
        for (uint32_t p = 0; p < n; p++) {
            uint64_t sc, sdp, rc, rdp;
            if (a->kind == ACLRT_HCCL_ALLTOALL) {
                sc = rc = a->count, sdp = rdp = (uint64_t)p * a->count;
            } else if (a->kind == ACLRT_HCCL_ALLTOALLV) {
                sc = a->v[p], sdp = a->v[n + p], rc = a->v[2 * n + p], rdp = a->v[3 * n + p];
            } else { /* row me sent, column me received; displacements are running sums */
                sc = a->v[(size_t)me * n + p], rc = a->v[(size_t)p * n + me];
                sdp = sd, rdp = rd;
                sd += sc, rd += rc;
            }
            if (p == me)
                aclrt_nccl_self(m, recv + rdp * rs, send + sdp * es, sc * es);
            else {
                aclrt_nccl_send(m, send + sdp * es, sc * es, p);
                aclrt_nccl_recv(m, recv + rdp * rs, rc * rs, p);
            }
        }
        break;
    }
    default: /* ACLRT_HCCL_BATCH */
        for (uint32_t i = 0; i < a->nitems; i++) {
            const HcclSendRecvItem *it = &a->items[i];
            size_t bytes = (size_t)it->count * aclrt_hccl_type_size(it->dataType);
            if (it->sendRecvType == HCCL_SEND)
                aclrt_nccl_send(m, it->buf, bytes, it->remoteRank);
            else
                aclrt_nccl_recv(m, it->buf, bytes, it->remoteRank);
        }
        break;
    }
}

static int aclrt_nccl_issue_locked(struct aclrt_cuda_nccl_comm *w, uint32_t rank, uint32_t nranks,
                                   const struct aclrt_hccl_args *a, aclrt_CUstream st, char *why)
{
    aclrt_ncclComm_t c = w->comm;
    /* The moves NCCL has no one call for, and the copies of a rank's own block (aclrt_nccl_self). */
    struct aclrt_nccl_moves m = {w, st, rank, ACLRT_NCCL_SUCCESS, ACLRT_CUDA_SUCCESS, "ncclGroupStart"};
    size_t es = aclrt_hccl_type_size(a->type);
    int t = aclrt_nccl_type(a->type), op = (int)a->op; /* HCCL's reductions are NCCL's four, in the same order */
    aclrt_ncclResult_t r = ACLRT_NCCL_SUCCESS;
    const char *call = "";
    switch (a->kind) {
    case ACLRT_HCCL_ALLREDUCE:
        call = "ncclAllReduce";
        r = aclrt_nccl.ncclAllReduce(a->send, a->recv, a->count, t, op, c, st);
        break;
    case ACLRT_HCCL_REDUCE:
        call = "ncclReduce";
        r = aclrt_nccl.ncclReduce(a->send, a->recv, a->count, t, op, (int)a->root, c, st);
        break;
    case ACLRT_HCCL_BROADCAST: /* in place: the root's buffer into everyone's */
        call = "ncclBroadcast";
        r = aclrt_nccl.ncclBroadcast(a->send, a->send, a->count * es, ACLRT_NCCL_INT8, (int)a->root, c, st);
        break;
    case ACLRT_HCCL_ALLGATHER:
        call = "ncclAllGather";
        r = aclrt_nccl.ncclAllGather(a->send, a->recv, a->count * es, ACLRT_NCCL_INT8, c, st);
        break;
    case ACLRT_HCCL_REDUCE_SCATTER: {
        /*
         * NCCL's in-place form has the rank's block in place (recv = send +
         * rank x count); buffers that overlap otherwise (HCCL's in place:
         * recv = send) reduce in NCCL's place, then the block is copied.
         */
        size_t block = a->count * es;
        char *s = (char *)a->send, *q = (char *)a->recv, *place = s + (size_t)rank * block;
        bool overlap = q < s + block * nranks && s < q + block;
        call = "ncclReduceScatter";
        r = aclrt_nccl.ncclReduceScatter(s, overlap ? place : q, a->count, t, op, c, st);
        if (r == ACLRT_NCCL_SUCCESS && overlap)
            aclrt_nccl_self(&m, q, place, block);
        break;
    }
    case ACLRT_HCCL_BARRIER:
        call = "ncclAllReduce (the barrier)";
        r = aclrt_nccl.ncclAllReduce((const void *)(uintptr_t)w->word, (void *)(uintptr_t)w->word, 1, ACLRT_NCCL_INT32,
                                     ACLRT_NCCL_SUM, c, st);
        break;
    case ACLRT_HCCL_REDUCE_SCATTERV: /* one reduce per block, to its rank */
        call = "ncclReduce (reduce-scatter-v)";
        r = aclrt_nccl.ncclGroupStart();
        for (uint32_t p = 0; r == ACLRT_NCCL_SUCCESS && p < nranks; p++)
            r = aclrt_nccl.ncclReduce((const char *)a->send + a->displs[p] * es, a->recv, a->counts[p], t, op, (int)p,
                                      c, st);
        {
            aclrt_ncclResult_t e = aclrt_nccl.ncclGroupEnd();
            r = r != ACLRT_NCCL_SUCCESS ? r : e;
        }
        break;
    default: { /* the moves NCCL has no one call for */
        r = aclrt_nccl.ncclGroupStart();
        if (r == ACLRT_NCCL_SUCCESS)
            aclrt_nccl_moves_of(&m, a, nranks);
        aclrt_ncclResult_t e = aclrt_nccl.ncclGroupEnd();
        if (r == ACLRT_NCCL_SUCCESS)
            r = m.r != ACLRT_NCCL_SUCCESS ? m.r : e;
        call = m.r != ACLRT_NCCL_SUCCESS ? m.call : "ncclGroupEnd";
        break;
    }
    }
    if (r != ACLRT_NCCL_SUCCESS)
        return aclrt_nccl_fail(r, call, why);
    if (m.cr != ACLRT_CUDA_SUCCESS) {
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "cuMemcpyAsync of the rank's own block failed (CUDA error %d)", (int)m.cr);
        return HCCL_E_RUNTIME;
    }
    return HCCL_SUCCESS;
}

static int aclrt_nccl_issue(void *comm, uint32_t rank, uint32_t nranks, const struct aclrt_hccl_args *a, void *native,
                            char *why)
{
    struct aclrt_cuda_nccl_comm *w = (struct aclrt_cuda_nccl_comm *)comm;
    pthread_mutex_lock(&w->lock);
    int rc = HCCL_E_INTERNAL;
    if (w->aborted)
        snprintf(why, ACLRT_BACKEND_COLL_WHY, "the NCCL communicator was aborted");
    else
        rc = aclrt_nccl_issue_locked(w, rank, nranks, a, (aclrt_CUstream)native, why);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static const struct aclrt_backend_coll aclrt_cuda_nccl = {
    .name = "NCCL",
    .open = aclrt_nccl_open,
    .unique_id = aclrt_nccl_unique_id,
    .comm_init = aclrt_nccl_comm_init,
    .comm_init_all = aclrt_nccl_comm_init_all,
    .comm_abort = aclrt_nccl_comm_abort,
    .comm_free = aclrt_nccl_comm_free,
    .comm_error = aclrt_nccl_comm_error,
    .sub_id = aclrt_nccl_sub_id,
    .reduces = aclrt_nccl_reduces,
    .issue = aclrt_nccl_issue,
};

#endif /* ACLRT_BACKENDS_CUDA_CUDA_NCCL_H */
