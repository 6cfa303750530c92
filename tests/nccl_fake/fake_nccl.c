/*
 * tests/nccl_fake/fake_nccl.c - a test double of NCCL's libnccl.so.2: the
 * calls a program makes to communicate between the GPUs of the CUDA driver
 * test double (tests/cuda_fake/fake_cuda.c), with NCCL's documented
 * semantics (nccl.h of NCCL 2.28: its names, types, enum values and
 * signatures, declared here), on CPU threads. Built by the Makefile as
 * build/<variant>/libnccl_fake.so; a program opens it in place of
 * libnccl.so.2 (make test-nccl-fake runs tests/nccl_fake/check_nccl.c).
 *
 * It is a test double, not NCCL:
 *   - The driver: the double needs the CUDA driver double already loaded in
 *     the process. It looks for it (dlopen with RTLD_NOLOAD, then dlsym) at
 *     ACLRT_FAKE_NCCL_CUDA_LIBRARY, ACLRT_CUDA_LIBRARY, libcuda_fake.so next
 *     to this library, then in the global scope. Without it every call that
 *     needs it fails with ncclSystemError. It uses the driver double's
 *     cuCtxGetCurrent / cuCtxGetDevice / cuDeviceGetCount and two hooks of
 *     its own: fakecuda_stream_task (run a function on a stream's worker, in
 *     stream order) and fakecuda_device_bytes (the host bytes of device
 *     memory).
 *   - ncclGetVersion: 22809 (NCCL 2.28.9).
 *   - Ranks are threads of one process or of several (any mix). A unique
 *     id (ncclGetUniqueId) carries its process's pid, a counter and a
 *     random secret, and names a rendezvous every process of the machine
 *     opens: the POSIX shared memory object
 *     /dev/shm/fakenccl-<pid>-<secret>-<counter>, made by the first rank to
 *     join, unlinked by the last (or by the last to give up). An id not
 *     made by ncclGetUniqueId, or of a process no longer running, is
 *     ncclInvalidUsage at ncclCommInitRank. An id makes one communicator at
 *     a time: ranks that join it after the communicator was made start
 *     another one. Ranks all in one process make an in-process
 *     communicator (data moved directly between the ranks' memory); ranks
 *     in several processes keep the shared object as their communicator's
 *     (see "Across processes" below).
 *   - ncclCommInitRank waits until all nranks ranks joined the id, at most
 *     ACLRT_FAKE_NCCL_INIT_TIMEOUT_MS (default 30000); then ncclSystemError
 *     (real NCCL waits on its bootstrap sockets and reports a failure there
 *     as a system error). The communicator's device is the calling
 *     thread's current context's (device 0 with none current, as the CUDA
 *     runtime's default device). Inside ncclGroupStart / ncclGroupEnd it
 *     joins and returns at once; the outermost ncclGroupEnd waits for
 *     every rank the thread initialised (one thread creates several ranks).
 *     ncclCommInitAll makes ndev ranks at once (rank i on devlist[i], or on
 *     device i with devlist NULL). ncclCommSplit is collective over the
 *     parent's ranks (each calls it, outside a group: inside one it is
 *     ncclInvalidUsage, not modelled), bounded like an init: color
 *     NCCL_SPLIT_NOCOLOR gives *newcomm NULL, the new ranks ordered by key,
 *     then by the old rank; the config argument is ignored.
 *   - Strict where NCCL is (the call's result; ncclGetLastError says why):
 *       ncclInvalidArgument: NULL pointers, nranks < 1, a rank or root out
 *         of range, an unknown datatype or reduction op, an fp8 reduction
 *         (NCCL 2.28 reduces fp8; this double moves fp8 only), a count
 *         whose bytes overflow, a buffer that is not in one live
 *         allocation of the driver double (device memory, or pinned host
 *         memory) for all its bytes, buffers that overlap other than in
 *         place (allreduce, reduce, broadcast: sendbuff == recvbuff;
 *         allgather: sendbuff == recvbuff + rank*count*size;
 *         reducescatter: sendbuff + rank*recvcount*size == recvbuff), a
 *         communicator that is not a live one (destroyed, aborted, never
 *         made: the double keeps a registry of live communicators), a
 *         device out of range (ncclCommInitAll).
 *       ncclInvalidUsage: two ranks of a communicator in one process on one
 *         CUDA device ("Duplicate GPU detected", every rank's init fails) unless
 *         ACLRT_FAKE_NCCL_SHARED_GPU=1; one rank joined twice; ranks that
 *         disagree on nranks; an id of a process gone; a collective on a
 *         communicator whose init failed or was finalized; a call inside a
 *         group after an earlier call of the group failed (the group then
 *         launches nothing, ncclGroupEnd returns the first failure);
 *         ncclGroupEnd without ncclGroupStart.
 *       ncclUnhandledCudaError: the driver double refused the stream
 *         operation (a lost context, the NULL stream, which it does not
 *         model, a stream capturing: the double does not capture NCCL work,
 *         the capture is left as it was).
 *   - Every operation is queued on its stream (a CUstream of the driver
 *     double) with fakecuda_stream_task. When the stream's worker reaches
 *     it, it joins its peers' operations and waits until each participant
 *     reached its own: collectives match by their sequence number in the
 *     communicator (the k-th collective of each rank), sends and receives
 *     per (sender, receiver) pair in issue order. The last to arrive moves
 *     the data with the CPU (through the bytes the driver double gave at the
 *     call) and releases the others. Reductions run in rank order 0..n-1
 *     (deterministic); fp16 and bf16 accumulate in float, rounded once to
 *     nearest even; ncclAvg is the sum divided by nranks (integers: C's
 *     integer division); integer sums and products wrap. Participants that
 *     disagree (operation, count, type, op, root; a send and receive of
 *     different sizes) move nothing: ncclInvalidUsage as every
 *     participant's asynchronous error.
 *   - A wait on a stream is bounded by ACLRT_FAKE_NCCL_EXEC_TIMEOUT_MS
 *     (default 60000; real NCCL waits for ever): then the operation gives
 *     up and moves nothing, and its communicator's asynchronous error
 *     (ncclCommGetAsyncError) is ncclSystemError. ncclCommAbort releases
 *     at once the workers waiting in operations of its communicator (the
 *     operation does nothing) and drops the communicator; its queued
 *     operations do nothing when reached. A rank that gave up (timed out,
 *     aborted, or its process died) releases none of its peers: as NCCL's
 *     kernels, they wait on for a part that will never come, until their
 *     own abort or timeout (what the runtime's watch is for).
 *     ncclCommGetAsyncError never says ncclInProgress (no nonblocking
 *     communicators: the config is ignored).
 *   - Groups nest (a depth per thread). Calls inside are checked at the call
 *     and queued; the outermost ncclGroupEnd waits for the group's inits,
 *     then launches in call order: each collective as one stream operation;
 *     the sends and receives of one communicator on one stream as ONE
 *     operation that posts all of them, then waits for all (neighbours that
 *     send to each other in one group do not deadlock; outside a group a
 *     send waits for its receive, as NCCL's may).
 *   - ncclCommDestroy does not wait for queued work (it still runs, the
 *     double keeps what it needs until then); ncclCommFinalize waits for
 *     the communicator's queued operations (bounded as above).
 *   - Across processes: each operation takes a slot of the shared object
 *     (collectives by sequence, sends/receives by sender, receiver and
 *     sequence; 32 slots); each rank copies its part into the slot's
 *     staging, the last to arrive reduces (in rank order) or moves it
 *     there, each copies its result out. An operation whose staging
 *     exceeds 16 MiB (a collective: every rank's part together; a send:
 *     its message) is refused at the call with ncclInternalError. A
 *     process-shared robust mutex guards the object, waiters sleep on a
 *     futex word; waits are bounded as above, and a rank that aborts, or
 *     whose process died, releases none of its peers (as above).
 *     Duplicate GPUs are checked among the
 *     ranks of one process only (other processes are as other hosts).
 *     ncclCommSplit of such a communicator is ncclInvalidUsage (not
 *     modelled).
 *   - Thread-safe: one process-wide lock and condition guard the state.
 *   - Test hooks: fakenccl_ops() counts the operations that moved data,
 *     fakenccl_comms() the communicators alive (handles and those queued
 *     work still holds).
 *   - Not checked: that the stream is of the communicator's device (real
 *     NCCL's kernels would run on the stream's device); ncclCommDestroy and
 *     ncclCommAbort of NULL return ncclSuccess, as NCCL's do.
 *   - Not modelled: nonblocking communicators, ncclCommInitRankConfig,
 *     ncclCommShrink, user buffers registration, custom reduction ops,
 *     ncclAlltoAll / Gather / Scatter, ncclBcast, several hosts.
 */
#define _GNU_SOURCE
#include "../../impl/core/half.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* nccl.h's types (NCCL 2.28), our own declarations. */
typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4, ncclNumOps = 5 } ncclRedOp_t;

typedef enum {
    ncclInt8 = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclFloat32 = 7,
    ncclFloat64 = 8,
    ncclBfloat16 = 9,
    ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11,
    ncclNumTypes = 12
} ncclDataType_t;

#define NCCL_UNIQUE_ID_BYTES 128
#define NCCL_SPLIT_NOCOLOR -1
#define FAKE_NCCL_VERSION 22809

typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef struct ncclComm *ncclComm_t;
typedef struct ncclConfig_v22800 ncclConfig_t; /* not read */
struct CUstream_st;
typedef struct CUstream_st *cudaStream_t;

typedef unsigned int CUresult;
typedef unsigned long long CUdeviceptr;

/* ------------------------------------------------------------------------
 * The driver double
 * ------------------------------------------------------------------------ */

static struct {
    CUresult (*ctx_get_current)(void **ctx);
    CUresult (*ctx_get_device)(int *device);
    CUresult (*device_get_count)(int *count);
    CUresult (*stream_task)(cudaStream_t s, void (*fn)(void *), void *user);
    CUresult (*device_bytes)(CUdeviceptr p, size_t n, void **bytes);
} D;
static bool g_driver_ok;
static int g_init_timeout_ms = 30000;
static int g_exec_timeout_ms = 60000;
static bool g_shared_gpu;
static uint64_t g_secret;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

static bool driver_from(void *h)
{
    if (h == NULL)
        return false;
    *(void **)&D.ctx_get_current = dlsym(h, "cuCtxGetCurrent");
    *(void **)&D.ctx_get_device = dlsym(h, "cuCtxGetDevice");
    *(void **)&D.device_get_count = dlsym(h, "cuDeviceGetCount");
    *(void **)&D.stream_task = dlsym(h, "fakecuda_stream_task");
    *(void **)&D.device_bytes = dlsym(h, "fakecuda_device_bytes");
    return D.ctx_get_current != NULL && D.ctx_get_device != NULL && D.device_get_count != NULL &&
           D.stream_task != NULL && D.device_bytes != NULL;
}

static void once_init(void)
{
    g_init_timeout_ms = env_int("ACLRT_FAKE_NCCL_INIT_TIMEOUT_MS", 30000);
    g_exec_timeout_ms = env_int("ACLRT_FAKE_NCCL_EXEC_TIMEOUT_MS", 60000);
    g_shared_gpu = env_int("ACLRT_FAKE_NCCL_SHARED_GPU", 0) != 0;
    /* The process's secret for its unique ids. */
    uint64_t r = 0;
    if (getentropy(&r, sizeof r) != 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = (uint64_t)ts.tv_nsec * 6364136223846793005ull ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&r;
    }
    g_secret = r | 1;
    /* The driver double, opened already by the program. */
    const char *paths[3] = {getenv("ACLRT_FAKE_NCCL_CUDA_LIBRARY"), getenv("ACLRT_CUDA_LIBRARY"), NULL};
    char sibling[4096];
    Dl_info info;
    if (dladdr((void *)once_init, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        int dir = slash != NULL ? (int)(slash - info.dli_fname) : 0;
        if (slash != NULL && snprintf(sibling, sizeof sibling, "%.*s/libcuda_fake.so", dir, info.dli_fname) <
                                 (int)sizeof sibling)
            paths[2] = sibling;
    }
    for (int i = 0; i < 3 && !g_driver_ok; i++)
        if (paths[i] != NULL && paths[i][0] != '\0')
            g_driver_ok = driver_from(dlopen(paths[i], RTLD_NOW | RTLD_NOLOAD));
    if (!g_driver_ok)
        g_driver_ok = driver_from(RTLD_DEFAULT);
}

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

static _Thread_local char t_last_error[512];

static ncclResult_t fail(ncclResult_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ncclResult_t fail(ncclResult_t r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
    va_end(ap);
    return r;
}

/* Every call that needs the driver double starts here. */
static ncclResult_t ready(void)
{
    pthread_once(&g_once, once_init);
    if (!g_driver_ok)
        return fail(ncclSystemError, "the CUDA driver test double (libcuda_fake.so) is not loaded in this process");
    return ncclSuccess;
}

/* ------------------------------------------------------------------------
 * State: one lock and one condition for all of it
 * ------------------------------------------------------------------------ */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static uint64_t g_ops;      /* operations that moved data (g_mu) */
static uint64_t g_id_count; /* unique ids made (g_mu) */

struct clique;
struct sh_seg;
struct task;

struct ncclComm {
    struct ncclComm *next; /* every communicator alive (g_comms) */
    bool live;             /* its handle is valid (not destroyed nor aborted) */
    int refs;              /* the handle, and each queued operation */
    int rank, nranks, device;
    struct clique *cl;     /* NULL until its init completed */
    struct sh_seg *map;    /* its init's rendezvous, while pending */
    char shname[96];       /* the rendezvous's name */
    bool init_done;
    ncclResult_t init_result;
    bool aborted, finalized;
    ncclResult_t async_err;
    char async_why[256];
    uint64_t coll_seq, split_seq;
    uint64_t *send_seq, *recv_seq; /* per peer */
    struct task *tasks;            /* queued operations, not yet finished */
};

struct coll_slot {
    struct coll_slot *next;
    uint64_t seq;
    struct task **parts; /* per rank, while it waits there */
    int arrived, left;
    bool done, broken;
    ncclResult_t err; /* why broken, for the others (0: a peer gave up) */
};

struct p2p_entry {
    bool send;
    int peer;
    void *bytes;
    size_t nbytes;
    uint64_t seq;
    struct pair *pair;
};

struct pair {
    struct pair *next;
    int src, dst;
    uint64_t seq;
    struct p2p_entry *s, *r;
    bool done, broken;
    int left;
    ncclResult_t err;
};

struct split {
    struct split *next;
    uint64_t seq;
    int arrived, left;
    int *color, *key;
    bool *in;
    struct ncclComm **newc;
    bool done;
    ncclResult_t result;
    char why[256];
};

struct clique {
    struct clique *next; /* g_cliques */
    int nranks, refs;
    struct sh_seg *sh; /* ranks in several processes: the segment (the rank's own clique), else NULL */
    int sh_rank;
    struct coll_slot *slots;
    struct pair *pairs;
    struct split *splits;
};

enum kind { K_ALLREDUCE, K_BROADCAST, K_REDUCE, K_ALLGATHER, K_REDUCESCATTER, K_P2P };

struct task {
    struct task *next, *prev; /* the comm's queued operations */
    struct ncclComm *comm;
    cudaStream_t stream;
    enum kind kind;
    uint64_t seq;
    void *send, *recv; /* the bytes (NULL where unused) */
    size_t count;      /* elements: of each rank's send (allreduce, ...), of recv (reducescatter) */
    int dtype, op, root;
    int nent;
    struct p2p_entry *ent;
};

static struct ncclComm *g_comms;
static struct clique *g_cliques;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait on g_cv (g_mu held) at most until deadline (ms, CLOCK_MONOTONIC); a short slice each time. */
static void wait_until(uint64_t deadline)
{
    uint64_t now = now_ms();
    uint64_t slice = deadline > now ? deadline - now : 0;
    if (slice > 10)
        slice = 10;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)slice * 1000000L + 100000L;
    while (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&g_cv, &g_mu, &ts);
}

/* ------------------------------------------------------------------------
 * Across processes: a shared segment per communicator
 *
 * Every ncclCommInitRank joins its id's rendezvous, a POSIX shared memory
 * object named from the id (/dev/shm/fakenccl-<pid>-<secret>-<counter>):
 * the first rank creates it, each registers (its pid, device, rank), the
 * last unlinks it (the ranks keep their mappings). Ranks all in one
 * process then make the in-process communicator (the clique above); ranks
 * in several processes keep the segment as their communicator's: its
 * slots match collectives by sequence and sends/receives by (sender,
 * receiver, sequence), and stage the data (each rank copies its part in,
 * the last to arrive reduces or moves it there, each copies its result
 * out). A process-shared robust mutex guards it; waiters sleep on a futex
 * word, bounded as the in-process waits.
 * ------------------------------------------------------------------------ */

#define SH_SLOTS 32
#define SH_ROOM ((size_t)16 << 20) /* staging bytes per slot */
enum { SH_OPEN = 0, SH_COMPLETE = 1, SH_DEAD = 2 };
enum { SL_FREE = 0, SL_COLL = 1, SL_PAIR = 2 };

struct sh_rank {
    int32_t pid, device, joined, gone; /* gone: aborted or dropped (its peers give up) */
    uint64_t local;                    /* its struct ncclComm *, in process pid */
};

struct sh_slot {
    int32_t kind, ckind, dtype, op, root, src, dst;
    int32_t in, arrived, left, done, broken, err; /* in: ranks that entered; arrived: with their data */
    int32_t s_posted, r_posted;
    uint64_t seq, count, s_bytes, r_bytes;
};

struct sh_seg {
    uint32_t ready; /* the creator initialised it (atomic) */
    uint32_t gen;   /* the futex word: bumped at every change (atomic) */
    pthread_mutex_t mu;
    int32_t nranks, joined, state, multi, init_result;
    char why[256];
    struct sh_slot slots[SH_SLOTS];
    struct sh_rank ranks[];
};

static size_t sh_stage_off(int nranks)
{
    size_t h = sizeof(struct sh_seg) + (size_t)nranks * sizeof(struct sh_rank);
    return (h + 4095u) & ~(size_t)4095u;
}

static size_t sh_size(int nranks)
{
    return sh_stage_off(nranks) + SH_SLOTS * SH_ROOM;
}

static char *sh_stage(struct sh_seg *s, int slot)
{
    return (char *)s + sh_stage_off(s->nranks) + (size_t)slot * SH_ROOM;
}

static void sh_lock(struct sh_seg *s)
{
    if (pthread_mutex_lock(&s->mu) == EOWNERDEAD) /* a process died holding it */
        pthread_mutex_consistent(&s->mu);
}

static void sh_unlock(struct sh_seg *s)
{
    pthread_mutex_unlock(&s->mu);
}

static void sh_wake(struct sh_seg *s)
{
    __atomic_add_fetch(&s->gen, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &s->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Sleep until the segment changes from `seen`, at most 10 ms, at most until deadline. */
static void sh_wait(struct sh_seg *s, uint32_t seen, uint64_t deadline)
{
    uint64_t now = now_ms();
    uint64_t slice = deadline > now ? deadline - now : 0;
    if (slice > 10)
        slice = 10;
    struct timespec rel = {.tv_sec = 0, .tv_nsec = (long)slice * 1000000L + 100000L};
    syscall(SYS_futex, &s->gen, FUTEX_WAIT, seen, &rel, NULL, 0);
}

static void sh_unmap(struct sh_seg *s)
{
    munmap(s, sh_size(s->nranks));
}

/* A rank of a several-process communicator leaves: its peers stop waiting for it. */
static void sh_gone(struct sh_seg *s, int rank)
{
    sh_lock(s);
    s->ranks[rank].gone = 1;
    sh_unlock(s);
    sh_wake(s);
}

static void sh_withdraw(struct ncclComm *c);

static bool comm_is_live(struct ncclComm *c) /* g_mu held */
{
    if (c == NULL)
        return false;
    for (struct ncclComm *x = g_comms; x != NULL; x = x->next)
        if (x == c)
            return x->live;
    return false;
}

static void set_async(struct ncclComm *c, ncclResult_t r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_async(struct ncclComm *c, ncclResult_t r, const char *fmt, ...) /* g_mu held */
{
    if (c->async_err != ncclSuccess)
        return;
    c->async_err = r;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->async_why, sizeof c->async_why, fmt, ap);
    va_end(ap);
}

static struct ncclComm *comm_new(int rank, int nranks, int device) /* g_mu not needed */
{
    struct ncclComm *c = (struct ncclComm *)calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->send_seq = (uint64_t *)calloc((size_t)nranks, sizeof(uint64_t));
    c->recv_seq = (uint64_t *)calloc((size_t)nranks, sizeof(uint64_t));
    if (c->send_seq == NULL || c->recv_seq == NULL) {
        free(c->send_seq);
        free(c->recv_seq);
        free(c);
        return NULL;
    }
    c->rank = rank;
    c->nranks = nranks;
    c->device = device;
    c->refs = 1;
    c->live = true;
    return c;
}

static void comm_link(struct ncclComm *c) /* g_mu held */
{
    c->next = g_comms;
    g_comms = c;
}

static void clique_put(struct clique *cl) /* g_mu held */
{
    if (--cl->refs > 0)
        return;
    for (struct clique **p = &g_cliques; *p != NULL; p = &(*p)->next)
        if (*p == cl) {
            *p = cl->next;
            break;
        }
    while (cl->slots != NULL) {
        struct coll_slot *s = cl->slots;
        cl->slots = s->next;
        free(s->parts);
        free(s);
    }
    while (cl->pairs != NULL) {
        struct pair *q = cl->pairs;
        cl->pairs = q->next;
        free(q);
    }
    if (cl->sh != NULL) {
        sh_gone(cl->sh, cl->sh_rank);
        sh_unmap(cl->sh);
    }
    while (cl->splits != NULL) {
        struct split *sp = cl->splits;
        cl->splits = sp->next;
        free(sp->color);
        free(sp->key);
        free(sp->in);
        free(sp->newc);
        free(sp);
    }
    free(cl);
}

static void comm_put(struct ncclComm *c) /* g_mu held */
{
    if (--c->refs > 0)
        return;
    for (struct ncclComm **p = &g_comms; *p != NULL; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    if (c->cl != NULL)
        clique_put(c->cl);
    sh_withdraw(c);
    free(c->send_seq);
    free(c->recv_seq);
    free(c);
}

static struct clique *clique_new(int nranks) /* g_mu held */
{
    struct clique *cl = (struct clique *)calloc(1, sizeof *cl);
    if (cl == NULL)
        return NULL;
    cl->nranks = nranks;
    cl->next = g_cliques;
    g_cliques = cl;
    return cl;
}

/* Two ranks on one device: the rank pair, or false. */
static bool duplicate_gpu(struct ncclComm **cores, int n, int *a, int *b)
{
    if (g_shared_gpu)
        return false;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (cores[i]->device == cores[j]->device) {
                *a = i;
                *b = j;
                return true;
            }
    return false;
}

/* The ranks of a communicator all present: its clique, or every rank's failure (g_mu held). */
static void complete_init(struct ncclComm **cores, int n)
{
    int a, b;
    ncclResult_t r = ncclSuccess;
    char why[256] = "";
    struct clique *cl = NULL;
    if (duplicate_gpu(cores, n, &a, &b)) {
        r = ncclInvalidUsage;
        snprintf(why, sizeof why,
                 "Duplicate GPU detected : rank %d and rank %d both on CUDA device %d "
                 "(ACLRT_FAKE_NCCL_SHARED_GPU=1 allows it)",
                 a, b, cores[a]->device);
    } else if ((cl = clique_new(n)) == NULL) {
        r = ncclSystemError;
        snprintf(why, sizeof why, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        struct ncclComm *c = cores[i];
        c->init_done = true;
        c->init_result = r;
        if (r != ncclSuccess) {
            set_async(c, r, "%s", why);
        } else {
            c->cl = cl;
            cl->refs++;
        }
    }
    pthread_cond_broadcast(&g_cv);
}

/* ------------------------------------------------------------------------
 * Unique ids
 * ------------------------------------------------------------------------ */

struct id_body {
    char magic[8];
    int32_t pid;
    uint32_t pad;
    uint64_t secret;
    uint64_t counter;
};
static const char ID_MAGIC[8] = {'F', 'A', 'K', 'E', 'N', 'C', 'C', 'L'};

EXPORT ncclResult_t ncclGetVersion(int *version)
{
    if (version == NULL)
        return fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
    *version = FAKE_NCCL_VERSION;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    pthread_once(&g_once, once_init);
    if (uniqueId == NULL)
        return fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
    struct id_body b;
    memset(&b, 0, sizeof b);
    memcpy(b.magic, ID_MAGIC, sizeof b.magic);
    b.pid = (int32_t)getpid();
    b.secret = g_secret;
    pthread_mutex_lock(&g_mu);
    b.counter = ++g_id_count;
    pthread_mutex_unlock(&g_mu);
    memset(uniqueId, 0, sizeof *uniqueId);
    memcpy(uniqueId->internal, &b, sizeof b);
    return ncclSuccess;
}

static ncclResult_t id_check(const ncclUniqueId *id)
{
    struct id_body b;
    memcpy(&b, id->internal, sizeof b);
    if (memcmp(b.magic, ID_MAGIC, sizeof b.magic) != 0)
        return fail(ncclInvalidUsage, "ncclCommInitRank: the unique id was not made by ncclGetUniqueId of this "
                                      "(test double) library");
    if (b.pid == (int32_t)getpid() && b.secret != g_secret)
        return fail(ncclInvalidUsage, "ncclCommInitRank: the unique id was not made by ncclGetUniqueId in this "
                                      "process, whose pid it has");
    if (b.pid != (int32_t)getpid() && (b.pid <= 0 || (kill(b.pid, 0) != 0 && errno == ESRCH)))
        return fail(ncclInvalidUsage, "ncclCommInitRank: the unique id comes from another process (pid %d), which is "
                                      "not running",
                    (int)b.pid);
    return ncclSuccess;
}

/* ------------------------------------------------------------------------
 * The rendezvous of an id, across processes (g_mu held throughout)
 * ------------------------------------------------------------------------ */

static void sh_name(const struct id_body *b, char *name, size_t size)
{
    snprintf(name, size, "/fakenccl-%d-%016llx-%llu", (int)b->pid, (unsigned long long)b->secret,
             (unsigned long long)b->counter);
}

/* The ranks have all joined (the segment locked): the communicator's shape, and the name unlinked. */
static void sh_complete(struct sh_seg *s, const char *name)
{
    int n = s->nranks;
    s->state = SH_COMPLETE;
    s->multi = 0;
    for (int i = 1; i < n; i++)
        if (s->ranks[i].pid != s->ranks[0].pid)
            s->multi = 1;
    /* Duplicate GPUs among the ranks of one process only: other processes are as other hosts. */
    for (int i = 0; i < n && !g_shared_gpu && s->init_result == ncclSuccess; i++)
        for (int j = i + 1; j < n; j++)
            if (s->ranks[i].pid == s->ranks[j].pid && s->ranks[i].device == s->ranks[j].device) {
                s->init_result = ncclInvalidUsage;
                snprintf(s->why, sizeof s->why,
                         "Duplicate GPU detected : rank %d and rank %d both on CUDA device %d "
                         "(ACLRT_FAKE_NCCL_SHARED_GPU=1 allows it)",
                         i, j, s->ranks[i].device);
                break;
            }
    shm_unlink(name);
    sh_wake(s);
}

/*
 * Join the id's rendezvous as `rank` of `nranks`: c->map set. The segment
 * is created by the first rank; one made already or given up is left to
 * its ranks, and a new one started (an id makes one communicator at a time).
 */
static ncclResult_t sh_join(const struct id_body *b, int nranks, int rank, struct ncclComm *c)
{
    char name[96];
    sh_name(b, name, sizeof name);
    uint64_t deadline = now_ms() + 10000;
    for (int tries = 0;; tries++) {
        if (now_ms() > deadline)
            return fail(ncclSystemError, "ncclCommInitRank: the rendezvous %s could not be opened in time", name);
        bool created = true;
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno == EEXIST) {
            created = false;
            fd = shm_open(name, O_RDWR, 0);
            if (fd < 0 && errno == ENOENT)
                continue; /* unlinked meanwhile: make a new one */
        }
        if (fd < 0)
            return fail(ncclSystemError, "ncclCommInitRank: shm_open %s: %s", name, strerror(errno));
        size_t len = sh_size(nranks);
        if (created) {
            if (ftruncate(fd, (off_t)len) != 0) {
                int e = errno;
                shm_unlink(name);
                close(fd);
                return fail(ncclSystemError, "ncclCommInitRank: ftruncate %s: %s", name, strerror(e));
            }
        } else {
            struct stat st;
            while (fstat(fd, &st) == 0 && st.st_size == 0 && now_ms() < deadline)
                usleep(1000);
            len = (size_t)st.st_size;
            if (len < sizeof(struct sh_seg)) {
                close(fd);
                continue;
            }
        }
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED)
            return fail(ncclSystemError, "ncclCommInitRank: mmap %s: %s", name, strerror(errno));
        struct sh_seg *s = (struct sh_seg *)p;
        if (created) {
            pthread_mutexattr_t a;
            pthread_mutexattr_init(&a);
            pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
            pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
            pthread_mutex_init(&s->mu, &a);
            pthread_mutexattr_destroy(&a);
            s->nranks = nranks;
            __atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) == 0 && now_ms() < deadline)
                usleep(1000);
            if (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) == 0 || len != sh_size(s->nranks)) {
                munmap(p, len);
                continue;
            }
        }
        sh_lock(s);
        if (s->state != SH_OPEN) {
            sh_unlock(s);
            munmap(p, len);
            continue;
        }
        if (s->nranks != nranks) {
            int other = s->nranks;
            sh_unlock(s);
            munmap(p, len);
            return fail(ncclInvalidUsage, "ncclCommInitRank: nranks %d, but other ranks of the id said %d", nranks,
                        other);
        }
        if (s->ranks[rank].joined) {
            sh_unlock(s);
            munmap(p, len);
            return fail(ncclInvalidUsage, "ncclCommInitRank: rank %d joined the id twice", rank);
        }
        s->ranks[rank] = (struct sh_rank){.pid = (int32_t)getpid(), .device = c->device, .joined = 1,
                                          .local = (uint64_t)(uintptr_t)c};
        c->map = s;
        snprintf(c->shname, sizeof c->shname, "%s", name);
        if (++s->joined == nranks)
            sh_complete(s, name);
        sh_wake(s);
        sh_unlock(s);
        return ncclSuccess;
    }
}

/*
 * A joined rank's init, if its rendezvous completed: done (true) or not yet.
 * Ranks of one process make the in-process communicator, all at once by the
 * first that sees it; ranks of several processes each keep the segment.
 */
static bool sh_settle(struct ncclComm *c)
{
    struct sh_seg *s = c->map;
    if (s == NULL)
        return c->init_done;
    sh_lock(s);
    if (s->state != SH_COMPLETE) {
        sh_unlock(s);
        return false;
    }
    int n = s->nranks, multi = s->multi;
    ncclResult_t r = (ncclResult_t)s->init_result;
    char why[256];
    snprintf(why, sizeof why, "%s", s->why);
    struct ncclComm *cores[n];
    for (int i = 0; i < n; i++)
        cores[i] = (struct ncclComm *)(uintptr_t)s->ranks[i].local;
    sh_unlock(s);
    if (!multi) { /* every rank is of this process, each waiting with its mapping */
        for (int i = 0; i < n; i++) {
            sh_unmap(cores[i]->map);
            cores[i]->map = NULL;
        }
        complete_init(cores, n); /* the same duplicate GPU check: the same result */
        return true;
    }
    c->map = NULL;
    c->init_done = true;
    c->init_result = r;
    if (r == ncclSuccess) {
        struct clique *cl = clique_new(n);
        if (cl == NULL) {
            c->init_result = r = ncclSystemError;
            snprintf(why, sizeof why, "out of memory");
        } else {
            cl->sh = s;
            cl->sh_rank = c->rank;
            cl->refs = 1;
            c->cl = cl;
            return true;
        }
    }
    set_async(c, r, "%s", why);
    sh_gone(s, c->rank);
    sh_unmap(s);
    return true;
}

/* A rank that gives up its pending init: it leaves the rendezvous (the last one unlinks it). */
static void sh_withdraw(struct ncclComm *c)
{
    struct sh_seg *s = c->map;
    if (s == NULL)
        return;
    c->map = NULL;
    sh_lock(s);
    if (s->state == SH_OPEN) {
        s->ranks[c->rank].joined = 0;
        s->joined--;
        /* ranks of processes that died meanwhile leave too */
        for (int i = 0; i < s->nranks; i++)
            if (s->ranks[i].joined && s->ranks[i].pid != (int32_t)getpid() && kill(s->ranks[i].pid, 0) != 0 &&
                errno == ESRCH) {
                s->ranks[i].joined = 0;
                s->joined--;
            }
        if (s->joined == 0) {
            s->state = SH_DEAD;
            shm_unlink(c->shname);
        }
    } else {
        s->ranks[c->rank].gone = 1; /* it completed as this rank gave up: the others do not wait for it */
    }
    sh_wake(s);
    sh_unlock(s);
    sh_unmap(s);
}

/* ------------------------------------------------------------------------
 * Groups (per thread)
 * ------------------------------------------------------------------------ */

enum call_kind { C_INIT, C_COLL, C_P2P };

struct call {
    enum call_kind kind;
    struct ncclComm *comm;
    cudaStream_t stream;
    struct task *task;    /* C_COLL: built, not launched */
    struct p2p_entry ent; /* C_P2P */
    bool taken;           /* C_P2P: merged into a launched operation */
};

struct group {
    int n, cap;
    struct call *calls;
    ncclResult_t err;
    char why[512];
};

/* Initial-exec: static TLS, which LeakSanitizer scans (a dlopened library's dynamic TLS it may not). */
static _Thread_local int t_depth __attribute__((tls_model("initial-exec")));
static _Thread_local struct group *t_group __attribute__((tls_model("initial-exec")));

static ncclResult_t group_add(const struct call *c)
{
    struct group *g = t_group;
    if (g->n == g->cap) {
        int cap = g->cap ? g->cap * 2 : 16;
        struct call *n = (struct call *)realloc(g->calls, (size_t)cap * sizeof *n);
        if (n == NULL)
            return fail(ncclSystemError, "out of memory");
        g->calls = n;
        g->cap = cap;
    }
    g->calls[g->n++] = *c;
    return ncclSuccess;
}

/* A call's failure inside a group fails the group (its first failure is ncclGroupEnd's). */
static ncclResult_t noted(ncclResult_t r)
{
    if (r != ncclSuccess && t_depth > 0 && t_group->err == ncclSuccess) {
        t_group->err = r;
        snprintf(t_group->why, sizeof t_group->why, "%s", t_last_error);
    }
    return r;
}

EXPORT ncclResult_t ncclGroupStart(void)
{
    if (t_depth == 0) {
        struct group *g = (struct group *)calloc(1, sizeof *g);
        if (g == NULL)
            return fail(ncclSystemError, "out of memory");
        t_group = g;
    }
    t_depth++;
    return ncclSuccess;
}

/* ------------------------------------------------------------------------
 * Data movement
 * ------------------------------------------------------------------------ */

static size_t type_size(int dt)
{
    switch (dt) {
    case ncclInt8:
    case ncclUint8:
    case ncclFloat8e4m3:
    case ncclFloat8e5m2: return 1;
    case ncclFloat16:
    case ncclBfloat16: return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32: return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64: return 8;
    default: return 0;
    }
}

/*
 * fp16 and bf16 accumulate in float, rounded once to nearest even at the
 * end: the runtime's own conversions (impl/core/half.h) by way of double,
 * which holds every float exactly (so the rounding is still the one).
 */
static float half_to_float(uint16_t h)
{
    return (float)aclrt_f16_to_double(h);
}

static uint16_t float_to_half(float f)
{
    return aclrt_f16_from_double(f);
}

static float bf16_to_float(uint16_t b)
{
    return (float)aclrt_bf16_to_double(b);
}

static uint16_t float_to_bf16(float f)
{
    return aclrt_bf16_from_double(f);
}

/* Integers: sums and products wrap (computed unsigned); avg is the wrapped sum divided by n. */
#define RED_INT(T)                                                                                                     \
    for (size_t i = 0; i < count; i++) {                                                                               \
        T acc = ((const T *)src[0])[i];                                                                                \
        for (int k = 1; k < n; k++) {                                                                                  \
            T v = ((const T *)src[k])[i];                                                                              \
            switch (op) {                                                                                              \
            case ncclProd: acc = (T)((uint64_t)acc * (uint64_t)v); break;                                              \
            case ncclMax: acc = v > acc ? v : acc; break;                                                              \
            case ncclMin: acc = v < acc ? v : acc; break;                                                              \
            default: acc = (T)((uint64_t)acc + (uint64_t)v); break;                                                    \
            }                                                                                                          \
        }                                                                                                              \
        if (op == ncclAvg)                                                                                             \
            acc = (T)(acc / (T)n);                                                                                     \
        for (int j = 0; j < ndst; j++)                                                                                 \
            ((T *)dst[j])[i] = acc;                                                                                    \
    }

#define RED_FLT(T, A, LD, ST)                                                                                          \
    for (size_t i = 0; i < count; i++) {                                                                              \
        A acc = LD(((const T *)src[0])[i]);                                                                            \
        for (int k = 1; k < n; k++) {                                                                                  \
            A v = LD(((const T *)src[k])[i]);                                                                          \
            switch (op) {                                                                                              \
            case ncclProd: acc = acc * v; break;                                                                       \
            case ncclMax: acc = v > acc ? v : acc; break;                                                              \
            case ncclMin: acc = v < acc ? v : acc; break;                                                              \
            default: acc = acc + v; break;                                                                             \
            }                                                                                                          \
        }                                                                                                              \
        if (op == ncclAvg)                                                                                             \
            acc = acc / (A)n;                                                                                          \
        T out = ST(acc);                                                                                               \
        for (int j = 0; j < ndst; j++)                                                                                 \
            ((T *)dst[j])[i] = out;                                                                                    \
    }

#define SAME(x) (x)

/*
 * dst[j][i] = src[0][i] op src[1][i] op ... (rank order), for each i: every
 * source element is read before any destination element i is written, so a
 * destination may be a source (in place).
 */
static void reduce(int dt, int op, int n, void *const *src, int ndst, void *const *dst, size_t count)
{
    switch (dt) {
    case ncclInt8: RED_INT(int8_t) break;
    case ncclUint8: RED_INT(uint8_t) break;
    case ncclInt32: RED_INT(int32_t) break;
    case ncclUint32: RED_INT(uint32_t) break;
    case ncclInt64: RED_INT(int64_t) break;
    case ncclUint64: RED_INT(uint64_t) break;
    case ncclFloat16: RED_FLT(uint16_t, float, half_to_float, float_to_half) break;
    case ncclBfloat16: RED_FLT(uint16_t, float, bf16_to_float, float_to_bf16) break;
    case ncclFloat32: RED_FLT(float, float, SAME, SAME) break;
    case ncclFloat64: RED_FLT(double, double, SAME, SAME) break;
    default: break;
    }
}

/* A collective's data, every rank present (g_mu held). */
static void coll_execute(struct coll_slot *s, int n)
{
    struct task *t0 = s->parts[0];
    size_t es = type_size(t0->dtype), bytes = t0->count * es;
    void *src[n], *dst[n];
    switch (t0->kind) {
    case K_ALLREDUCE:
        for (int k = 0; k < n; k++) {
            src[k] = s->parts[k]->send;
            dst[k] = s->parts[k]->recv;
        }
        reduce(t0->dtype, t0->op, n, src, n, dst, t0->count);
        break;
    case K_REDUCE: {
        for (int k = 0; k < n; k++)
            src[k] = s->parts[k]->send;
        dst[0] = s->parts[t0->root]->recv;
        reduce(t0->dtype, t0->op, n, src, 1, dst, t0->count);
        break;
    }
    case K_BROADCAST: {
        const void *from = s->parts[t0->root]->send;
        for (int k = 0; k < n; k++)
            if (s->parts[k]->recv != from)
                memmove(s->parts[k]->recv, from, bytes);
        break;
    }
    case K_ALLGATHER:
        for (int r = 0; r < n; r++)
            for (int k = 0; k < n; k++) {
                char *to = (char *)s->parts[r]->recv + (size_t)k * bytes;
                if (to != s->parts[k]->send)
                    memmove(to, s->parts[k]->send, bytes);
            }
        break;
    case K_REDUCESCATTER:
        for (int r = 0; r < n; r++) {
            for (int k = 0; k < n; k++)
                src[k] = (char *)s->parts[k]->send + (size_t)r * bytes;
            dst[0] = s->parts[r]->recv;
            reduce(t0->dtype, t0->op, n, src, 1, dst, t0->count);
        }
        break;
    case K_P2P: break;
    }
    g_ops++;
}

/* ------------------------------------------------------------------------
 * Operations on the streams' workers
 * ------------------------------------------------------------------------ */

static void task_finish(struct task *t) /* g_mu held */
{
    struct ncclComm *c = t->comm;
    if (t->prev != NULL)
        t->prev->next = t->next;
    else
        c->tasks = t->next;
    if (t->next != NULL)
        t->next->prev = t->prev;
    free(t->ent);
    free(t);
    pthread_cond_broadcast(&g_cv); /* a finalize may wait for the queue to empty */
    comm_put(c);
}

static const char *kind_name(enum kind k)
{
    static const char *names[] = {"ncclAllReduce", "ncclBroadcast", "ncclReduce", "ncclAllGather",
                                  "ncclReduceScatter", "ncclSend/ncclRecv"};
    return names[k];
}

static void run_coll(struct task *t) /* g_mu held */
{
    struct ncclComm *c = t->comm;
    struct clique *cl = c->cl;
    int n = cl->nranks;
    struct coll_slot *s = cl->slots;
    while (s != NULL && s->seq != t->seq)
        s = s->next;
    if (s == NULL) {
        s = (struct coll_slot *)calloc(1, sizeof *s);
        struct task **parts = (struct task **)calloc((size_t)n, sizeof *parts);
        if (s == NULL || parts == NULL) {
            free(s);
            free(parts);
            set_async(c, ncclSystemError, "%s: out of memory", kind_name(t->kind));
            return;
        }
        s->parts = parts;
        s->seq = t->seq;
        s->next = cl->slots;
        cl->slots = s;
    }
    if (!s->broken) {
        s->parts[c->rank] = t;
        s->arrived++;
        struct task *o = NULL;
        for (int k = 0; k < n && o == NULL; k++)
            if (s->parts[k] != NULL && s->parts[k] != t)
                o = s->parts[k];
        if (o != NULL && (o->kind != t->kind || o->count != t->count || o->dtype != t->dtype || o->op != t->op ||
                          o->root != t->root)) {
            s->broken = true;
            s->err = ncclInvalidUsage;
        } else if (s->arrived == n) {
            coll_execute(s, n);
            s->done = true;
        }
        pthread_cond_broadcast(&g_cv);
    }
    uint64_t deadline = now_ms() + (uint64_t)g_exec_timeout_ms;
    /* A peer that gave up (broken, no error) releases nobody: as NCCL's kernel, this one waits on. */
    while (!s->done && !(s->broken && s->err != ncclSuccess) && !c->aborted && now_ms() < deadline)
        wait_until(deadline);
    if (!s->done) {
        if (c->aborted) {
            /* the operation does nothing */
        } else if (s->broken && s->err != ncclSuccess) {
            set_async(c, s->err, "%s #%llu: the ranks called different collectives (or counts, types, ops, roots)",
                      kind_name(t->kind), (unsigned long long)t->seq);
        } else {
            set_async(c, ncclSystemError, "%s #%llu: rank %d waited %d ms for its peers (%d of %d arrived)",
                      kind_name(t->kind), (unsigned long long)t->seq, c->rank, g_exec_timeout_ms, s->arrived, n);
        }
        if (!s->broken) {
            s->broken = true;
            pthread_cond_broadcast(&g_cv);
        }
    }
    s->parts[c->rank] = NULL;
    if (++s->left == n) {
        for (struct coll_slot **p = &cl->slots; *p != NULL; p = &(*p)->next)
            if (*p == s) {
                *p = s->next;
                break;
            }
        free(s->parts);
        free(s);
    }
}

static bool p2p_settled(const struct task *t)
{
    for (int i = 0; i < t->nent; i++)
        if (!t->ent[i].pair->done && !(t->ent[i].pair->broken && t->ent[i].pair->err != ncclSuccess))
            return false; /* a peer that gave up releases nobody (as NCCL's kernel, this one waits on) */
    return true;
}

static void run_p2p(struct task *t) /* g_mu held */
{
    struct ncclComm *c = t->comm;
    struct clique *cl = c->cl;
    int posted = 0;
    for (int i = 0; i < t->nent; i++, posted++) {
        struct p2p_entry *e = &t->ent[i];
        int src = e->send ? c->rank : e->peer, dst = e->send ? e->peer : c->rank;
        struct pair *q = cl->pairs;
        while (q != NULL && !(q->src == src && q->dst == dst && q->seq == e->seq))
            q = q->next;
        if (q == NULL) {
            if ((q = (struct pair *)calloc(1, sizeof *q)) == NULL) {
                set_async(c, ncclSystemError, "ncclSend/ncclRecv: out of memory");
                break;
            }
            q->src = src;
            q->dst = dst;
            q->seq = e->seq;
            q->next = cl->pairs;
            cl->pairs = q;
        }
        e->pair = q;
        if (q->broken)
            continue;
        if (e->send)
            q->s = e;
        else
            q->r = e;
        if (q->s != NULL && q->r != NULL) {
            if (q->s->nbytes != q->r->nbytes) {
                q->broken = true;
                q->err = ncclInvalidUsage;
            } else {
                memmove(q->r->bytes, q->s->bytes, q->s->nbytes);
                q->done = true;
                g_ops++;
            }
        }
    }
    t->nent = posted;
    pthread_cond_broadcast(&g_cv);
    uint64_t deadline = now_ms() + (uint64_t)g_exec_timeout_ms;
    while (!p2p_settled(t) && !c->aborted && now_ms() < deadline)
        wait_until(deadline);
    for (int i = 0; i < t->nent; i++) {
        struct p2p_entry *e = &t->ent[i];
        struct pair *q = e->pair;
        if (!q->done) {
            if (c->aborted) {
                /* does nothing */
            } else if (q->broken && q->err != ncclSuccess) {
                set_async(c, q->err, "ncclSend/ncclRecv: rank %d sent %zu bytes to rank %d, which received %zu",
                          q->src, q->s != NULL ? q->s->nbytes : 0, q->dst, q->r != NULL ? q->r->nbytes : 0);
            } else {
                set_async(c, ncclSystemError, "%s: rank %d waited %d ms for rank %d", e->send ? "ncclSend" : "ncclRecv",
                          c->rank, g_exec_timeout_ms, e->peer);
            }
            if (!q->broken) {
                q->broken = true;
                pthread_cond_broadcast(&g_cv);
            }
        }
        if (e->send)
            q->s = NULL;
        else
            q->r = NULL;
        if (++q->left == 2) {
            for (struct pair **p = &cl->pairs; *p != NULL; p = &(*p)->next)
                if (*p == q) {
                    *p = q->next;
                    break;
                }
            free(q);
        }
    }
}

/* ------------------------------------------------------------------------
 * Operations of a communicator across processes (g_mu not held)
 * ------------------------------------------------------------------------ */

static bool comm_aborted(struct ncclComm *c)
{
    pthread_mutex_lock(&g_mu);
    bool a = c->aborted;
    pthread_mutex_unlock(&g_mu);
    return a;
}

/* The slot of a key, or a free one taken for it (-1: none free); segment locked. */
static int sh_slot_of(struct sh_seg *s, int kind, uint64_t seq, int src, int dst)
{
    int free_at = -1;
    for (int i = 0; i < SH_SLOTS; i++) {
        struct sh_slot *x = &s->slots[i];
        if (x->kind == SL_FREE) {
            if (free_at < 0)
                free_at = i;
        } else if (x->kind == kind && x->seq == seq && x->src == src && x->dst == dst) {
            return i;
        }
    }
    if (free_at >= 0) {
        struct sh_slot *x = &s->slots[free_at];
        memset(x, 0, sizeof *x);
        x->kind = kind;
        x->seq = seq;
        x->src = src;
        x->dst = dst;
    }
    return free_at;
}

/* Staging bytes a rank's part takes in a collective's slot, and the slot's total. */
static size_t sh_part(const struct task *t, int n)
{
    size_t b = t->count * type_size(t->dtype);
    return t->kind == K_REDUCESCATTER ? (size_t)n * b : b;
}

static size_t sh_need(const struct task *t, int n)
{
    return t->kind == K_BROADCAST ? sh_part(t, n) : (size_t)n * sh_part(t, n);
}

/* The last rank's part arrived: reduce or move in the staging (segment locked). */
static void sh_execute(const struct task *t, char *stage, int n)
{
    size_t part = sh_part(t, n), b = t->count * type_size(t->dtype);
    void *src[n], *dst[1];
    switch (t->kind) {
    case K_ALLREDUCE:
    case K_REDUCE:
        for (int k = 0; k < n; k++)
            src[k] = stage + (size_t)k * part;
        dst[0] = stage;
        reduce(t->dtype, t->op, n, src, 1, dst, t->count);
        break;
    case K_REDUCESCATTER:
        for (int r = 0; r < n; r++) {
            for (int k = 0; k < n; k++)
                src[k] = stage + (size_t)k * part + (size_t)r * b;
            dst[0] = stage + (size_t)r * b;
            reduce(t->dtype, t->op, n, src, 1, dst, t->count);
        }
        break;
    default: break; /* broadcast, allgather: the parts are the result */
    }
}

static void sh_run_coll(struct task *t)
{
    struct ncclComm *c = t->comm;
    struct sh_seg *s = c->cl->sh;
    int n = c->nranks, me = c->rank, at = -1;
    size_t part = sh_part(t, n), b = t->count * type_size(t->dtype);
    uint64_t deadline = now_ms() + (uint64_t)g_exec_timeout_ms;
    bool aborted = false, late = false, executed = false;
    struct sh_slot *x = NULL;
    for (;;) {
        aborted = comm_aborted(c);
        late = now_ms() >= deadline;
        uint32_t seen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
        sh_lock(s);
        if (at < 0 && !aborted && (at = sh_slot_of(s, SL_COLL, t->seq, -1, -1)) >= 0) {
            x = &s->slots[at];
            x->in++;
            if (x->ckind == 0) {
                x->ckind = (int32_t)t->kind + 1;
                x->count = t->count;
                x->dtype = t->dtype;
                x->op = t->op;
                x->root = t->root;
            } else if (x->ckind != (int32_t)t->kind + 1 || x->count != t->count || x->dtype != t->dtype ||
                       x->op != t->op || x->root != t->root) {
                x->broken = 1;
                x->err = ncclInvalidUsage;
            }
            if (!x->broken) {
                char *stage = sh_stage(s, at);
                if (t->kind == K_BROADCAST) {
                    if (me == t->root)
                        memcpy(stage, t->send, b);
                } else {
                    memcpy(stage + (size_t)me * part, t->send, part);
                }
                if (++x->arrived == n) {
                    sh_execute(t, stage, n);
                    x->done = 1;
                    executed = true;
                }
            }
            sh_wake(s);
        }
        /* A peer that gave up or left (broken, no error) releases nobody: as NCCL's kernel, this one waits on. */
        if (x != NULL && (x->done || (x->broken && x->err != ncclSuccess)))
            break;
        if (aborted || late)
            break;
        sh_unlock(s);
        sh_wait(s, seen, deadline);
    }
    /* segment locked */
    bool done = x != NULL && x->done;
    int broken = x != NULL ? x->broken : 0, err = x != NULL ? x->err : 0, arrived = x != NULL ? x->arrived : 0;
    if (done) {
        const char *stage = sh_stage(s, at);
        switch (t->kind) {
        case K_ALLREDUCE: memcpy(t->recv, stage, b); break;
        case K_REDUCE:
            if (me == t->root)
                memcpy(t->recv, stage, b);
            break;
        case K_BROADCAST:
            if (t->recv != t->send || me != t->root)
                memcpy(t->recv, stage, b);
            break;
        case K_ALLGATHER: memcpy(t->recv, stage, (size_t)n * b); break;
        case K_REDUCESCATTER: memcpy(t->recv, stage + (size_t)me * b, b); break;
        default: break;
        }
    }
    if (x != NULL) {
        if (!done)
            x->broken = 1;
        if (++x->left == x->in)
            x->kind = SL_FREE;
        sh_wake(s);
    }
    sh_unlock(s);
    pthread_mutex_lock(&g_mu);
    if (executed)
        g_ops++;
    if (!done && !c->aborted) {
        if (broken && err != ncclSuccess)
            set_async(c, (ncclResult_t)err,
                      "%s #%llu: the ranks called different collectives (or counts, types, ops, roots)",
                      kind_name(t->kind), (unsigned long long)t->seq);
        else if (x == NULL)
            set_async(c, ncclSystemError, "%s #%llu: rank %d waited %d ms for a free staging slot", kind_name(t->kind),
                      (unsigned long long)t->seq, me, g_exec_timeout_ms);
        else
            set_async(c, ncclSystemError, "%s #%llu: rank %d waited %d ms for its peers (%d of %d arrived)",
                      kind_name(t->kind), (unsigned long long)t->seq, me, g_exec_timeout_ms, arrived, n);
    }
    pthread_mutex_unlock(&g_mu);
}

static void sh_run_p2p(struct task *t)
{
    struct ncclComm *c = t->comm;
    struct sh_seg *s = c->cl->sh;
    int me = c->rank, m = t->nent;
    int at[m > 0 ? m : 1];
    bool settled[m > 0 ? m : 1];
    for (int i = 0; i < m; i++)
        at[i] = -1, settled[i] = false;
    uint64_t deadline = now_ms() + (uint64_t)g_exec_timeout_ms;
    bool aborted = false, late = false;
    uint64_t moved = 0;
    for (;;) {
        aborted = comm_aborted(c);
        late = now_ms() >= deadline;
        uint32_t seen = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
        sh_lock(s);
        bool changed = false, all = true, stop = aborted || late;
        for (int i = 0; i < m; i++) {
            struct p2p_entry *e = &t->ent[i];
            int src = e->send ? me : e->peer, dst = e->send ? e->peer : me;
            if (at[i] < 0 && !aborted && (at[i] = sh_slot_of(s, SL_PAIR, e->seq, src, dst)) >= 0) {
                struct sh_slot *x = &s->slots[at[i]];
                x->in++;
                if (e->send) {
                    x->s_posted = 1;
                    x->s_bytes = e->nbytes;
                    if (!x->broken)
                        memcpy(sh_stage(s, at[i]), e->bytes, e->nbytes);
                } else {
                    x->r_posted = 1;
                    x->r_bytes = e->nbytes;
                }
                if (x->s_posted && x->r_posted && x->s_bytes != x->r_bytes && !x->broken) {
                    x->broken = 1;
                    x->err = ncclInvalidUsage;
                }
                changed = true;
            }
            if (at[i] < 0) {
                all = false;
                continue;
            }
            struct sh_slot *x = &s->slots[at[i]];
            if (!e->send && !x->done && !x->broken && x->s_posted && x->r_posted) {
                memcpy(e->bytes, sh_stage(s, at[i]), e->nbytes);
                x->done = 1;
                moved++;
                changed = true;
            }
            /* A peer that gave up or left (broken, no error) releases nobody: this one waits on. */
            settled[i] = x->done || (x->broken && x->err != ncclSuccess);
            if (!settled[i])
                all = false;
        }
        if (changed)
            sh_wake(s);
        if (all || stop)
            break;
        sh_unlock(s);
        sh_wait(s, seen, deadline);
    }
    /* segment locked */
    ncclResult_t why[m > 0 ? m : 1];
    uint64_t ssz[m > 0 ? m : 1], rsz[m > 0 ? m : 1];
    for (int i = 0; i < m; i++) {
        why[i] = ncclSuccess;
        ssz[i] = rsz[i] = 0;
        if (at[i] < 0) {
            why[i] = ncclSystemError;
            continue;
        }
        struct sh_slot *x = &s->slots[at[i]];
        if (!x->done) {
            why[i] = x->broken && x->err != ncclSuccess ? (ncclResult_t)x->err : ncclSystemError;
            ssz[i] = x->s_bytes;
            rsz[i] = x->r_bytes;
            x->broken = 1;
        }
        if (++x->left == x->in)
            x->kind = SL_FREE;
    }
    sh_wake(s);
    sh_unlock(s);
    pthread_mutex_lock(&g_mu);
    g_ops += moved;
    for (int i = 0; i < m && !c->aborted; i++) {
        struct p2p_entry *e = &t->ent[i];
        int src = e->send ? me : e->peer, dst = e->send ? e->peer : me;
        if (why[i] == ncclInvalidUsage)
            set_async(c, why[i], "ncclSend/ncclRecv: rank %d sent %llu bytes to rank %d, which received %llu", src,
                      (unsigned long long)ssz[i], dst, (unsigned long long)rsz[i]);
        else if (why[i] != ncclSuccess)
            set_async(c, why[i], "%s: rank %d waited %d ms for rank %d", e->send ? "ncclSend" : "ncclRecv", me,
                      g_exec_timeout_ms, e->peer);
    }
    pthread_mutex_unlock(&g_mu);
}

/* The stream operation: what fakecuda_stream_task runs on the stream's worker. */
static void run_task(void *user)
{
    struct task *t = (struct task *)user;
    pthread_mutex_lock(&g_mu);
    if (!t->comm->aborted && t->comm->cl != NULL && t->comm->cl->sh != NULL) {
        pthread_mutex_unlock(&g_mu); /* the task holds the communicator, which holds its clique */
        if (t->kind == K_P2P)
            sh_run_p2p(t);
        else
            sh_run_coll(t);
        pthread_mutex_lock(&g_mu);
    } else if (!t->comm->aborted && t->comm->cl != NULL) {
        if (t->kind == K_P2P)
            run_p2p(t);
        else
            run_coll(t);
    }
    task_finish(t);
    pthread_mutex_unlock(&g_mu);
}

/* Queue a built operation on its stream (its sequence numbers taken here); frees it on failure. */
static ncclResult_t launch(struct task *t)
{
    struct ncclComm *c = t->comm;
    pthread_mutex_lock(&g_mu);
    if (!comm_is_live(c) || c->cl == NULL || c->finalized) {
        bool live = comm_is_live(c);
        const char *what = kind_name(t->kind);
        pthread_mutex_unlock(&g_mu);
        free(t->ent);
        free(t);
        return live ? fail(ncclInvalidUsage, "%s: the communicator's init failed, or it was finalized", what)
                    : fail(ncclInvalidArgument, "%s: not a live communicator", what);
    }
    if (c->cl->sh != NULL) { /* across processes: the data is staged in a slot of the segment */
        size_t need = 0;
        if (t->kind == K_P2P) {
            for (int i = 0; i < t->nent; i++)
                if (t->ent[i].nbytes > need)
                    need = t->ent[i].nbytes;
        } else {
            need = sh_need(t, c->nranks);
        }
        if (need > SH_ROOM) {
            const char *what = kind_name(t->kind);
            pthread_mutex_unlock(&g_mu);
            free(t->ent);
            free(t);
            return fail(ncclInternalError,
                        "%s: %zu bytes to stage; the NCCL test double stages an operation across processes in at "
                        "most %zu bytes (a send or receive: its message; a collective: every rank's part)",
                        what, need, SH_ROOM);
        }
    }
    if (t->kind == K_P2P) {
        for (int i = 0; i < t->nent; i++)
            t->ent[i].seq = t->ent[i].send ? c->send_seq[t->ent[i].peer]++ : c->recv_seq[t->ent[i].peer]++;
    } else {
        t->seq = c->coll_seq++;
    }
    t->prev = NULL;
    t->next = c->tasks;
    if (c->tasks != NULL)
        c->tasks->prev = t;
    c->tasks = t;
    c->refs++;
    pthread_mutex_unlock(&g_mu);
    CUresult cr = D.stream_task(t->stream, run_task, t);
    if (cr == 0)
        return ncclSuccess;
    pthread_mutex_lock(&g_mu);
    enum kind k = t->kind;
    if (k == K_P2P) {
        for (int i = 0; i < t->nent; i++)
            if (t->ent[i].send)
                c->send_seq[t->ent[i].peer]--;
            else
                c->recv_seq[t->ent[i].peer]--;
    } else {
        c->coll_seq--;
    }
    task_finish(t);
    pthread_mutex_unlock(&g_mu);
    return fail(ncclUnhandledCudaError,
                "%s: the CUDA driver refused the stream operation: CUresult %u%s", kind_name(k), cr,
                cr == 900 ? " (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: the NCCL test double does not capture)" : "");
}

/* ------------------------------------------------------------------------
 * Checks of the calls
 * ------------------------------------------------------------------------ */

/* A live, initialised (or, inside a group, initialising) communicator. */
static ncclResult_t check_comm(struct ncclComm *c, const char *what)
{
    pthread_mutex_lock(&g_mu);
    bool live = comm_is_live(c);
    bool bad = live && ((c->init_done && c->init_result != ncclSuccess) || c->finalized);
    pthread_mutex_unlock(&g_mu);
    if (!live)
        return fail(ncclInvalidArgument, "%s: comm %p is not a live communicator (NULL, destroyed or aborted)", what,
                    (void *)c);
    if (bad)
        return fail(ncclInvalidUsage, "%s: the communicator's init failed, or it was finalized", what);
    return ncclSuccess;
}

static ncclResult_t check_type(int dt, int op, bool reduces, const char *what)
{
    if (dt < 0 || dt >= ncclNumTypes)
        return fail(ncclInvalidArgument, "%s: invalid datatype %d", what, dt);
    if (reduces && (op < 0 || op >= ncclNumOps))
        return fail(ncclInvalidArgument, "%s: invalid reduction operation %d", what, op);
    if (reduces && (dt == ncclFloat8e4m3 || dt == ncclFloat8e5m2))
        return fail(ncclInvalidArgument, "%s: fp8 reductions are not supported by the NCCL test double", what);
    return ncclSuccess;
}

/* count * size * times, or false on overflow. */
static bool span_of(size_t count, size_t size, size_t times, size_t *out)
{
    return !__builtin_mul_overflow(count, size, out) && !__builtin_mul_overflow(*out, times, out);
}

static ncclResult_t bytes_of(const void *p, size_t n, void **bytes, const char *what, const char *name)
{
    if (p == NULL)
        return fail(ncclInvalidArgument, "%s: %s is NULL", what, name);
    if (D.device_bytes((CUdeviceptr)(uintptr_t)p, n, bytes) != 0)
        return fail(ncclInvalidArgument,
                    "%s: %s %p (%zu bytes) is not in one live allocation of device (or pinned host) memory", what,
                    name, p, n);
    return ncclSuccess;
}

static bool overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an > 0 && bn > 0 && x < y + bn && y < x + an;
}

/* Launch now, or queue in the thread's group. */
static ncclResult_t issue(struct task *t)
{
    if (t_depth == 0)
        return launch(t);
    struct call cl = {.kind = C_COLL, .comm = t->comm, .stream = t->stream, .task = t};
    ncclResult_t r = group_add(&cl);
    if (r != ncclSuccess) {
        free(t);
        return r;
    }
    return ncclSuccess;
}

static ncclResult_t collective(enum kind kind, const void *sendbuff, void *recvbuff, size_t count, int dt, int op,
                               int root, struct ncclComm *c, cudaStream_t stream)
{
    const char *what = kind_name(kind);
    ncclResult_t r;
    bool reduces = kind == K_ALLREDUCE || kind == K_REDUCE || kind == K_REDUCESCATTER;
    if ((r = ready()) != ncclSuccess || (r = check_comm(c, what)) != ncclSuccess ||
        (r = check_type(dt, op, reduces, what)) != ncclSuccess)
        return r;
    int n = c->nranks, rank = c->rank;
    bool rooted = kind == K_BROADCAST || kind == K_REDUCE;
    if (rooted && (root < 0 || root >= n))
        return fail(ncclInvalidArgument, "%s: root %d is not a rank of %d", what, root, n);
    size_t es = type_size(dt), one, all;
    if (!span_of(count, es, 1, &one) || !span_of(count, es, (size_t)n, &all))
        return fail(ncclInvalidArgument, "%s: count %zu overflows", what, count);
    if (count == 0)
        return ncclSuccess; /* nothing to move: every rank skips it */
    size_t send_n = one, recv_n = one;
    bool need_send = true, need_recv = true;
    switch (kind) {
    case K_ALLGATHER: recv_n = all; break;
    case K_REDUCESCATTER: send_n = all; break;
    case K_BROADCAST: need_send = rank == root; break;
    case K_REDUCE: need_recv = rank == root; break;
    default: break;
    }
    void *sb = NULL, *rb = NULL;
    if (need_send && (r = bytes_of(sendbuff, send_n, &sb, what, "sendbuff")) != ncclSuccess)
        return r;
    if (need_recv && (r = bytes_of(recvbuff, recv_n, &rb, what, "recvbuff")) != ncclSuccess)
        return r;
    if (need_send && need_recv) {
        const char *in_place = NULL;
        switch (kind) {
        case K_ALLGATHER:
            if (sendbuff != (const char *)recvbuff + (size_t)rank * one)
                in_place = "sendbuff == recvbuff + rank*sendcount*size";
            break;
        case K_REDUCESCATTER:
            if ((const char *)sendbuff + (size_t)rank * one != recvbuff)
                in_place = "sendbuff + rank*recvcount*size == recvbuff";
            break;
        default:
            if (sendbuff != recvbuff)
                in_place = "sendbuff == recvbuff";
            break;
        }
        if (in_place != NULL && overlap(sendbuff, send_n, recvbuff, recv_n))
            return fail(ncclInvalidArgument, "%s: sendbuff %p and recvbuff %p overlap, not in place (%s)", what,
                        sendbuff, recvbuff, in_place);
    }
    struct task *t = (struct task *)calloc(1, sizeof *t);
    if (t == NULL)
        return fail(ncclSystemError, "out of memory");
    t->comm = c;
    t->stream = stream;
    t->kind = kind;
    t->send = sb;
    t->recv = rb;
    t->count = count;
    t->dtype = dt;
    t->op = reduces ? op : 0;
    t->root = rooted ? root : 0;
    return issue(t);
}

EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                  ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    return noted(collective(K_ALLREDUCE, sendbuff, recvbuff, count, datatype, op, 0, comm, stream));
}

EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                  int root, ncclComm_t comm, cudaStream_t stream)
{
    return noted(collective(K_BROADCAST, sendbuff, recvbuff, count, datatype, 0, root, comm, stream));
}

EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                               ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    return noted(collective(K_REDUCE, sendbuff, recvbuff, count, datatype, op, root, comm, stream));
}

EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                                  ncclComm_t comm, cudaStream_t stream)
{
    return noted(collective(K_ALLGATHER, sendbuff, recvbuff, sendcount, datatype, 0, 0, comm, stream));
}

EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                                      ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    return noted(collective(K_REDUCESCATTER, sendbuff, recvbuff, recvcount, datatype, op, 0, comm, stream));
}

static ncclResult_t p2p(bool send, const void *buff, size_t count, int dt, int peer, struct ncclComm *c,
                        cudaStream_t stream)
{
    const char *what = send ? "ncclSend" : "ncclRecv";
    ncclResult_t r;
    if ((r = ready()) != ncclSuccess || (r = check_comm(c, what)) != ncclSuccess ||
        (r = check_type(dt, 0, false, what)) != ncclSuccess)
        return r;
    if (peer < 0 || peer >= c->nranks)
        return fail(ncclInvalidArgument, "%s: peer %d is not a rank of %d", what, peer, c->nranks);
    size_t nb;
    if (!span_of(count, type_size(dt), 1, &nb))
        return fail(ncclInvalidArgument, "%s: count %zu overflows", what, count);
    if (count == 0)
        return ncclSuccess;
    void *bytes;
    if ((r = bytes_of(buff, nb, &bytes, what, send ? "sendbuff" : "recvbuff")) != ncclSuccess)
        return r;
    struct p2p_entry e = {.send = send, .peer = peer, .bytes = bytes, .nbytes = nb};
    if (t_depth > 0) {
        struct call cl = {.kind = C_P2P, .comm = c, .stream = stream, .ent = e};
        return group_add(&cl);
    }
    struct task *t = (struct task *)calloc(1, sizeof *t);
    struct p2p_entry *ent = (struct p2p_entry *)malloc(sizeof *ent);
    if (t == NULL || ent == NULL) {
        free(t);
        free(ent);
        return fail(ncclSystemError, "out of memory");
    }
    *ent = e;
    t->comm = c;
    t->stream = stream;
    t->kind = K_P2P;
    t->nent = 1;
    t->ent = ent;
    return launch(t);
}

EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                             cudaStream_t stream)
{
    return noted(p2p(true, sendbuff, count, datatype, peer, comm, stream));
}

EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                             cudaStream_t stream)
{
    return noted(p2p(false, recvbuff, count, datatype, peer, comm, stream));
}

/* ------------------------------------------------------------------------
 * Communicators
 * ------------------------------------------------------------------------ */

/* Wait for a joined rank's init (g_mu held): its result; the rank withdraws on timeout. */
static ncclResult_t init_wait(struct ncclComm *c, uint64_t deadline)
{
    while (!sh_settle(c) && !c->aborted && now_ms() < deadline)
        wait_until(deadline);
    if (!c->init_done) {
        int missing = 0;
        if (c->map != NULL) {
            sh_lock(c->map);
            missing = c->map->nranks - c->map->joined;
            sh_unlock(c->map);
        }
        sh_withdraw(c);
        c->init_done = true;
        c->init_result = ncclSystemError;
        set_async(c, ncclSystemError, "ncclCommInitRank: rank %d of %d waited %d ms for %d more rank(s) to join",
                  c->rank, c->nranks, g_init_timeout_ms, missing);
        return fail(ncclSystemError, "%s", c->async_why);
    }
    if (c->init_result != ncclSuccess)
        return fail(c->init_result, "%s", c->async_why);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    ncclResult_t r;
    if ((r = ready()) != ncclSuccess)
        return noted(r);
    if (comm == NULL)
        return noted(fail(ncclInvalidArgument, "ncclCommInitRank: comm is NULL"));
    if (nranks < 1)
        return noted(fail(ncclInvalidArgument, "ncclCommInitRank: nranks %d is below 1", nranks));
    if (rank < 0 || rank >= nranks)
        return noted(fail(ncclInvalidArgument, "ncclCommInitRank: rank %d is not in [0, %d)", rank, nranks));
    if ((r = id_check(&commId)) != ncclSuccess)
        return noted(r);
    int device = 0;
    void *ctx = NULL;
    if (D.ctx_get_current(&ctx) != 0)
        return noted(fail(ncclUnhandledCudaError, "ncclCommInitRank: cuCtxGetCurrent failed"));
    if (ctx != NULL && D.ctx_get_device(&device) != 0)
        return noted(fail(ncclUnhandledCudaError, "ncclCommInitRank: cuCtxGetDevice failed"));
    struct ncclComm *c = comm_new(rank, nranks, device);
    if (c == NULL)
        return noted(fail(ncclSystemError, "out of memory"));
    struct id_body b;
    memcpy(&b, commId.internal, sizeof b);
    pthread_mutex_lock(&g_mu);
    if ((r = sh_join(&b, nranks, rank, c)) != ncclSuccess) {
        comm_put(c); /* not linked: freed at once (refs 1) */
        pthread_mutex_unlock(&g_mu);
        return noted(r);
    }
    comm_link(c);
    sh_settle(c); /* the last to join: the ranks of this process settle now */
    if (t_depth > 0) {
        pthread_mutex_unlock(&g_mu);
        *comm = c;
        struct call cl = {.kind = C_INIT, .comm = c};
        return noted(group_add(&cl));
    }
    r = init_wait(c, now_ms() + (uint64_t)g_init_timeout_ms);
    if (r != ncclSuccess) {
        c->live = false;
        comm_put(c);
        *comm = NULL;
    } else {
        *comm = c;
    }
    pthread_mutex_unlock(&g_mu);
    return r;
}

EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    ncclResult_t r;
    if ((r = ready()) != ncclSuccess)
        return r;
    if (comms == NULL)
        return fail(ncclInvalidArgument, "ncclCommInitAll: comms is NULL");
    if (ndev < 1)
        return fail(ncclInvalidArgument, "ncclCommInitAll: ndev %d is below 1", ndev);
    int count = 0;
    if (D.device_get_count(&count) != 0)
        return fail(ncclUnhandledCudaError, "ncclCommInitAll: cuDeviceGetCount failed");
    for (int i = 0; i < ndev; i++) {
        int d = devlist != NULL ? devlist[i] : i;
        if (d < 0 || d >= count)
            return fail(ncclInvalidArgument, "ncclCommInitAll: device %d (rank %d) is not one of %d", d, i, count);
    }
    struct ncclComm **cores = (struct ncclComm **)calloc((size_t)ndev, sizeof *cores);
    if (cores == NULL)
        return fail(ncclSystemError, "out of memory");
    for (int i = 0; i < ndev; i++)
        if ((cores[i] = comm_new(i, ndev, devlist != NULL ? devlist[i] : i)) == NULL) {
            pthread_mutex_lock(&g_mu);
            for (int k = 0; k < i; k++)
                comm_put(cores[k]);
            pthread_mutex_unlock(&g_mu);
            free(cores);
            return fail(ncclSystemError, "out of memory");
        }
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < ndev; i++)
        comm_link(cores[i]);
    complete_init(cores, ndev);
    r = cores[0]->init_result;
    if (r != ncclSuccess)
        fail(r, "ncclCommInitAll: %s", cores[0]->async_why);
    for (int i = 0; i < ndev; i++) {
        if (r != ncclSuccess) {
            cores[i]->live = false;
            comm_put(cores[i]);
            comms[i] = NULL;
        } else {
            comms[i] = cores[i];
        }
    }
    pthread_mutex_unlock(&g_mu);
    free(cores);
    return r;
}

EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)
{
    (void)config;
    ncclResult_t r;
    if ((r = ready()) != ncclSuccess || (r = check_comm(comm, "ncclCommSplit")) != ncclSuccess)
        return noted(r);
    if (newcomm == NULL)
        return noted(fail(ncclInvalidArgument, "ncclCommSplit: newcomm is NULL"));
    if (color < NCCL_SPLIT_NOCOLOR)
        return noted(fail(ncclInvalidArgument, "ncclCommSplit: color %d is negative", color));
    if (t_depth > 0)
        return noted(fail(ncclInvalidUsage, "ncclCommSplit inside a group is not modelled by the NCCL test double"));
    struct ncclComm *c = comm;
    pthread_mutex_lock(&g_mu);
    struct clique *cl = c->cl;
    if (cl == NULL) {
        pthread_mutex_unlock(&g_mu);
        return fail(ncclInvalidUsage, "ncclCommSplit: the communicator is not initialised");
    }
    if (cl->sh != NULL) {
        pthread_mutex_unlock(&g_mu);
        return fail(ncclInvalidUsage, "ncclCommSplit of a communicator across processes is not modelled by the NCCL "
                                      "test double");
    }
    int n = cl->nranks;
    uint64_t seq = c->split_seq++;
    struct split *sp = cl->splits;
    while (sp != NULL && sp->seq != seq)
        sp = sp->next;
    if (sp == NULL) {
        sp = (struct split *)calloc(1, sizeof *sp);
        if (sp != NULL) {
            sp->color = (int *)calloc((size_t)n, sizeof(int));
            sp->key = (int *)calloc((size_t)n, sizeof(int));
            sp->in = (bool *)calloc((size_t)n, sizeof(bool));
            sp->newc = (struct ncclComm **)calloc((size_t)n, sizeof(struct ncclComm *));
        }
        if (sp == NULL || sp->color == NULL || sp->key == NULL || sp->in == NULL || sp->newc == NULL) {
            if (sp != NULL) {
                free(sp->color);
                free(sp->key);
                free(sp->in);
                free(sp->newc);
                free(sp);
            }
            c->split_seq--;
            pthread_mutex_unlock(&g_mu);
            return fail(ncclSystemError, "out of memory");
        }
        sp->seq = seq;
        sp->next = cl->splits;
        cl->splits = sp;
    }
    sp->color[c->rank] = color;
    sp->key[c->rank] = key;
    sp->in[c->rank] = true;
    /* Each rank's device, for the new communicators: the parent's ranks are its clique's cores. */
    if (++sp->arrived == n) {
        struct ncclComm **parents = (struct ncclComm **)calloc((size_t)n, sizeof *parents);
        int *order = (int *)calloc((size_t)n, sizeof(int));
        if (parents == NULL || order == NULL) {
            sp->result = ncclSystemError;
            snprintf(sp->why, sizeof sp->why, "out of memory");
        } else {
            for (struct ncclComm *x = g_comms; x != NULL; x = x->next)
                if (x->cl == cl)
                    parents[x->rank] = x;
            for (int i = 0; i < n && sp->result == ncclSuccess; i++) {
                if (sp->color[i] == NCCL_SPLIT_NOCOLOR || sp->newc[i] != NULL)
                    continue;
                int m = 0; /* members of color[i], ordered by key, then old rank (insertion sort) */
                for (int j = 0; j < n; j++) {
                    if (sp->color[j] != sp->color[i])
                        continue;
                    int at = m++;
                    while (at > 0 && sp->key[order[at - 1]] > sp->key[j])
                        order[at] = order[at - 1], at--;
                    order[at] = j;
                }
                struct ncclComm *cores[m];
                for (int k = 0; k < m; k++) {
                    int dev = parents[order[k]] != NULL ? parents[order[k]]->device : 0;
                    cores[k] = comm_new(k, m, dev);
                }
                for (int k = 0; k < m; k++)
                    if (cores[k] == NULL) {
                        for (int q = 0; q < m; q++)
                            if (cores[q] != NULL)
                                comm_put(cores[q]);
                        sp->result = ncclSystemError;
                        snprintf(sp->why, sizeof sp->why, "out of memory");
                        break;
                    }
                if (sp->result != ncclSuccess)
                    break;
                for (int k = 0; k < m; k++)
                    comm_link(cores[k]);
                complete_init(cores, m);
                if (cores[0]->init_result != ncclSuccess) {
                    sp->result = cores[0]->init_result;
                    snprintf(sp->why, sizeof sp->why, "%s", cores[0]->async_why);
                    for (int k = 0; k < m; k++) {
                        cores[k]->live = false;
                        comm_put(cores[k]);
                    }
                    break;
                }
                for (int k = 0; k < m; k++)
                    sp->newc[order[k]] = cores[k];
            }
            if (sp->result != ncclSuccess) /* all or nothing */
                for (int i = 0; i < n; i++)
                    if (sp->newc[i] != NULL) {
                        sp->newc[i]->live = false;
                        comm_put(sp->newc[i]);
                        sp->newc[i] = NULL;
                    }
        }
        free(parents);
        free(order);
        sp->done = true;
        pthread_cond_broadcast(&g_cv);
    }
    uint64_t deadline = now_ms() + (uint64_t)g_init_timeout_ms;
    while (!sp->done && !c->aborted && now_ms() < deadline)
        wait_until(deadline);
    if (!sp->done) { /* withdraw: the split can complete only if this rank calls again */
        sp->in[c->rank] = false;
        sp->arrived--;
        c->split_seq--;
        int arrived = sp->arrived;
        pthread_mutex_unlock(&g_mu);
        return fail(ncclSystemError, "ncclCommSplit: rank %d waited %d ms for the other ranks (%d of %d came)",
                    c->rank, g_init_timeout_ms, arrived + 1, n);
    }
    r = sp->result;
    if (r != ncclSuccess)
        fail(r, "ncclCommSplit: %s", sp->why);
    *newcomm = sp->newc[c->rank];
    if (++sp->left == n) {
        for (struct split **p = &cl->splits; *p != NULL; p = &(*p)->next)
            if (*p == sp) {
                *p = sp->next;
                break;
            }
        free(sp->color);
        free(sp->key);
        free(sp->in);
        free(sp->newc);
        free(sp);
    }
    pthread_mutex_unlock(&g_mu);
    return r;
}

EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    pthread_once(&g_once, once_init);
    pthread_mutex_lock(&g_mu);
    if (!comm_is_live(comm)) {
        pthread_mutex_unlock(&g_mu);
        return fail(ncclInvalidArgument, "ncclCommFinalize: comm %p is not a live communicator", (void *)comm);
    }
    struct ncclComm *c = comm;
    c->finalized = true;
    uint64_t deadline = now_ms() + (uint64_t)g_exec_timeout_ms;
    while (c->tasks != NULL && !c->aborted && now_ms() < deadline)
        wait_until(deadline);
    ncclResult_t r = ncclSuccess;
    if (c->tasks != NULL)
        r = fail(ncclSystemError, "ncclCommFinalize: queued operations did not finish in %d ms", g_exec_timeout_ms);
    pthread_mutex_unlock(&g_mu);
    return r;
}

/* Destroy and abort: the handle goes; what queued operations hold stays until they ran. */
static ncclResult_t comm_drop(struct ncclComm *c, bool abort, const char *what)
{
    pthread_once(&g_once, once_init);
    if (c == NULL)
        return ncclSuccess; /* NCCL: a NULL communicator is ignored */
    pthread_mutex_lock(&g_mu);
    if (!comm_is_live(c)) {
        pthread_mutex_unlock(&g_mu);
        return fail(ncclInvalidArgument, "%s: comm %p is not a live communicator", what, (void *)c);
    }
    c->live = false;
    if (abort)
        c->aborted = true;
    if (!c->init_done && !sh_settle(c))
        sh_withdraw(c);
    if (abort && c->cl != NULL && c->cl->sh != NULL)
        sh_gone(c->cl->sh, c->rank); /* its peers' operations give up at once */
    pthread_cond_broadcast(&g_cv);
    comm_put(c);
    pthread_mutex_unlock(&g_mu);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    return comm_drop(comm, false, "ncclCommDestroy");
}

EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return comm_drop(comm, true, "ncclCommAbort");
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    if (asyncError == NULL)
        return fail(ncclInvalidArgument, "ncclCommGetAsyncError: asyncError is NULL");
    pthread_mutex_lock(&g_mu);
    bool live = comm_is_live(comm);
    if (live)
        *asyncError = comm->async_err;
    pthread_mutex_unlock(&g_mu);
    if (!live)
        return fail(ncclInvalidArgument, "ncclCommGetAsyncError: comm %p is not a live communicator", (void *)comm);
    return ncclSuccess;
}

static ncclResult_t comm_query(struct ncclComm *c, int *out, int which, const char *what)
{
    if (out == NULL)
        return fail(ncclInvalidArgument, "%s: the result pointer is NULL", what);
    pthread_mutex_lock(&g_mu);
    bool live = comm_is_live(c);
    if (live)
        *out = which == 0 ? c->nranks : which == 1 ? c->device : c->rank;
    pthread_mutex_unlock(&g_mu);
    if (!live)
        return fail(ncclInvalidArgument, "%s: comm %p is not a live communicator", what, (void *)c);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    return comm_query(comm, count, 0, "ncclCommCount");
}

EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    return comm_query(comm, device, 1, "ncclCommCuDevice");
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    return comm_query(comm, rank, 2, "ncclCommUserRank");
}

EXPORT const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

/* The last failure of a call on this thread; for a communicator with an asynchronous error, that error's. */
EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
    if (comm != NULL) {
        pthread_mutex_lock(&g_mu);
        if (comm_is_live(comm) && comm->async_err != ncclSuccess)
            snprintf(t_last_error, sizeof t_last_error, "%s", comm->async_why);
        pthread_mutex_unlock(&g_mu);
    }
    return t_last_error;
}

/* The outermost ncclGroupEnd: the inits waited for, then the operations launched in call order. */
EXPORT ncclResult_t ncclGroupEnd(void)
{
    if (t_depth == 0)
        return fail(ncclInvalidUsage, "ncclGroupEnd: no ncclGroupStart");
    if (--t_depth > 0)
        return ncclSuccess;
    struct group *g = t_group;
    t_group = NULL;
    ncclResult_t r = g->err;
    if (r != ncclSuccess)
        fail(r, "%s", g->why);
    uint64_t deadline = now_ms() + (uint64_t)g_init_timeout_ms;
    for (int i = 0; i < g->n; i++) {
        if (g->calls[i].kind != C_INIT)
            continue;
        pthread_mutex_lock(&g_mu);
        ncclResult_t ri = init_wait(g->calls[i].comm, deadline);
        pthread_mutex_unlock(&g_mu);
        if (ri != ncclSuccess && r == ncclSuccess)
            r = ri;
    }
    for (int i = 0; i < g->n; i++) {
        struct call *cl = &g->calls[i];
        if (cl->kind == C_COLL) {
            if (r == ncclSuccess)
                r = launch(cl->task);
            else
                free(cl->task);
        } else if (cl->kind == C_P2P && !cl->taken && r == ncclSuccess) {
            int m = 0;
            for (int j = i; j < g->n; j++)
                if (g->calls[j].kind == C_P2P && g->calls[j].comm == cl->comm && g->calls[j].stream == cl->stream)
                    m++;
            struct task *t = (struct task *)calloc(1, sizeof *t);
            struct p2p_entry *ent = (struct p2p_entry *)calloc((size_t)m, sizeof *ent);
            if (t == NULL || ent == NULL) {
                free(t);
                free(ent);
                r = fail(ncclSystemError, "out of memory");
                continue;
            }
            m = 0;
            for (int j = i; j < g->n; j++)
                if (g->calls[j].kind == C_P2P && g->calls[j].comm == cl->comm && g->calls[j].stream == cl->stream) {
                    ent[m++] = g->calls[j].ent;
                    g->calls[j].taken = true;
                }
            t->comm = cl->comm;
            t->stream = cl->stream;
            t->kind = K_P2P;
            t->nent = m;
            t->ent = ent;
            r = launch(t);
        }
    }
    free(g->calls);
    free(g);
    return r;
}

/* ------------------------------------------------------------------------
 * Test hooks
 * ------------------------------------------------------------------------ */

/* Operations that moved data so far (a collective counts once, a send/receive pair once). */
EXPORT unsigned long long fakenccl_ops(void)
{
    pthread_mutex_lock(&g_mu);
    uint64_t n = g_ops;
    pthread_mutex_unlock(&g_mu);
    return (unsigned long long)n;
}

/* Communicators alive: live handles, and dropped ones that queued operations still hold. */
EXPORT int fakenccl_comms(void)
{
    pthread_mutex_lock(&g_mu);
    int n = 0;
    for (struct ncclComm *c = g_comms; c != NULL; c = c->next)
        n++;
    pthread_mutex_unlock(&g_mu);
    return n;
}
