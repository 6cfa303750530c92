/*
 * impl/hccl/hccl_comm.h - communicators, their errors, and the settings HCCL
 * reads from the environment.
 *
 *   - A communicator is one rank's handle (HcclComm). Ranks of one process
 *     share a team (hccl_local.h); a communicator across processes holds the
 *     engine's MPI communicator (hccl_engine.h) and the world rank of each
 *     of its ranks.
 *   - Handles are checked against the list of live communicators, so a
 *     destroyed or garbage handle is HCCL_E_PARA with a message, not a crash.
 *   - Failures: each call returns an HcclResult and leaves a message for
 *     aclGetRecentErrMsg (the runtime's per-thread text); a failure of an
 *     operation in flight is kept as the communicator's asynchronous error
 *     (HcclGetCommAsyncError) and fails its task on the stream.
 *   - HCCL_CONNECT_TIMEOUT (seconds a rendezvous waits for every rank,
 *     default 120) and HCCL_EXEC_TIMEOUT (seconds an operation waits for
 *     its peers, default 1836) are read when a communicator is made.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_COMM_H
#define ACLRT_IMPL_HCCL_HCCL_COMM_H

#include "../core/base.h"
#include "../../hccl/hccl.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../../backends/backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACLRT_HCCL_COMM_MAGIC 0x48434f4du /* "HCOM" */
#define ACLRT_HCCL_UID_BYTES 16
#define ACLRT_HCCL_CONNECT_TIMEOUT_S 120
#define ACLRT_HCCL_EXEC_TIMEOUT_S 1836
#define ACLRT_HCCL_NAME_BYTES 128

struct aclrt_hccl_team;

/* Memory a communicator was told of (hccl_memory.h): ranges, active mappings, symmetric windows. */
enum aclrt_hccl_region_kind { ACLRT_HCCL_RANGE = 1, ACLRT_HCCL_ACTIVE, ACLRT_HCCL_WINDOW };
struct aclrt_hccl_region {
    enum aclrt_hccl_region_kind kind;
    char *base;
    size_t size;
    struct aclrt_hccl_comm *comm;
    struct aclrt_hccl_region *next;
};

struct aclrt_hccl_comm {
    uint32_t magic; /* ACLRT_HCCL_COMM_MAGIC while the handle is live */
    uint32_t rank;
    uint32_t nranks;
    int32_t device; /* the device current when the communicator was made */
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    char name[ACLRT_HCCL_NAME_BYTES];
    uint64_t exec_timeout_ns;
    struct aclrt_hccl_team *team; /* in-process ranks; NULL across processes */
    void *mpi;                    /* the engine's communicator; NULL in-process */
    void *coll;                   /* the backend's communicator (hccl_backend.h); NULL: HCCL moves the data */
    bool local;                   /* every rank is in this process (known where the backend's engine runs it) */
    int *world_ranks;             /* across processes: MPI_COMM_WORLD rank of each rank */
    _Atomic int async_error;      /* the first failure of an operation in flight (HcclResult) */
    _Atomic uint32_t inflight;    /* operations submitted and not finished */
    char failure[256];            /* what async_error says (written once, by whoever set it) */
    _Atomic int suspended;        /* HcclCommSuspend .. HcclCommResume: operations are refused */
    pthread_mutex_t regions_lock;
    struct aclrt_hccl_region *regions;
    struct aclrt_hccl_comm *next; /* the live list */
};

static pthread_mutex_t aclrt_hccl_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aclrt_hccl_comm *aclrt_hccl_live;

/* The ACL code a rejected call records with its message (aclGetRecentErrMsg) for an HcclResult. */
static aclError aclrt_hccl_acl_code(HcclResult r)
{
    switch (r) {
    case HCCL_E_PTR:
    case HCCL_E_PARA: return ACL_ERROR_INVALID_PARAM;
    case HCCL_E_MEMORY: return ACL_ERROR_BAD_ALLOC;
    case HCCL_E_NOT_SUPPORT: return ACL_ERROR_FEATURE_UNSUPPORTED;
    case HCCL_E_TIMEOUT: return ACL_ERROR_RT_TASK_TIMEOUT;
    case HCCL_E_REMOTE: return ACL_ERROR_RT_SUSPECT_REMOTE_ERROR;
    case HCCL_E_NETWORK: return ACL_ERROR_RT_LINK_ERROR;
    default: return ACL_ERROR_FAILURE;
    }
}

/* Fails a call: the message goes where aclGetRecentErrMsg finds it; returns `r`. */
ACLRT_INTERNAL ACLRT_NOINLINE ACLRT_PRINTF(2, 3) HcclResult aclrt_hccl_fail(HcclResult r, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    aclrt_fail(aclrt_hccl_acl_code(r), "%s (HcclResult %d)", line, (int)r);
    return r;
}

/* Seconds from an environment variable, within [lo, hi]; `dflt` when unset or unreadable. */
static uint64_t aclrt_hccl_env_seconds(const char *name, long lo, long hi, long dflt)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return (uint64_t)dflt;
    char *end;
    long s = strtol(v, &end, 10);
    if (*end != '\0' || s < lo || s > hi)
        return (uint64_t)dflt;
    return (uint64_t)s;
}

ACLRT_INTERNAL uint64_t aclrt_hccl_connect_timeout_ns(void)
{
    return aclrt_hccl_env_seconds("HCCL_CONNECT_TIMEOUT", 1, 7200, ACLRT_HCCL_CONNECT_TIMEOUT_S) * 1000000000ull;
}

ACLRT_INTERNAL uint64_t aclrt_hccl_exec_timeout_ns(void)
{
    return aclrt_hccl_env_seconds("HCCL_EXEC_TIMEOUT", 1, 2147483, ACLRT_HCCL_EXEC_TIMEOUT_S) * 1000000000ull;
}

ACLRT_INTERNAL void aclrt_hccl_live_add(struct aclrt_hccl_comm *c)
{
    c->magic = ACLRT_HCCL_COMM_MAGIC;
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    c->next = aclrt_hccl_live;
    aclrt_hccl_live = c;
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
}

/* Takes c off the live list; false if it was not on it (destroyed twice, or not a communicator). */
ACLRT_INTERNAL bool aclrt_hccl_live_remove(struct aclrt_hccl_comm *c)
{
    bool found = false;
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    for (struct aclrt_hccl_comm **p = &aclrt_hccl_live; *p != NULL; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            c->magic = 0;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    return found;
}

/* The communicator behind a handle, or a failed call (NULL: HCCL_E_PTR; not live: HCCL_E_PARA). */
ACLRT_INTERNAL HcclResult aclrt_hccl_comm_get(HcclComm handle, struct aclrt_hccl_comm **out)
{
    if (handle == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "comm is NULL");
    bool found = false;
    pthread_mutex_lock(&aclrt_hccl_live_lock);
    for (struct aclrt_hccl_comm *c = aclrt_hccl_live; c != NULL; c = c->next)
        if ((void *)c == (void *)handle) {
            found = true;
            break;
        }
    pthread_mutex_unlock(&aclrt_hccl_live_lock);
    if (!found)
        return aclrt_hccl_fail(HCCL_E_PARA, "comm %p is no live communicator (destroyed, or never made)", (void *)handle);
    *out = (struct aclrt_hccl_comm *)(void *)handle;
    return HCCL_SUCCESS;
}

/* Records the first asynchronous failure of c; later ones keep the first. */
ACLRT_INTERNAL void aclrt_hccl_comm_set_error(struct aclrt_hccl_comm *c, HcclResult r, const char *why)
{
    int expected = HCCL_SUCCESS;
    if (atomic_compare_exchange_strong_explicit(&c->async_error, &expected, (int)r, memory_order_acq_rel,
                                                memory_order_acquire))
        snprintf(c->failure, sizeof c->failure, "%s", why);
}

/* Operation `api` failed in flight with r: c's asynchronous error, said once on stderr as the device's log would. */
ACLRT_INTERNAL void aclrt_hccl_comm_failed(struct aclrt_hccl_comm *c, const char *api, HcclResult r, const char *why)
{
    if (atomic_load_explicit(&c->async_error, memory_order_acquire) == HCCL_SUCCESS)
        fprintf(stderr, "[HCCL] %s, communicator %s rank %u: %s (HcclResult %d)\n", api, c->name, c->rank, why, (int)r);
    aclrt_hccl_comm_set_error(c, r, why);
}

ACLRT_API const char *HcclGetErrorString(HcclResult code)
{
    switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "parameter error";
    case HCCL_E_PTR: return "empty pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "not support feature";
    case HCCL_E_NOT_FOUND: return "not found specific resource";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "call system interface error";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_OPEN_FILE_FAILURE: return "open file fail";
    case HCCL_E_TCP_CONNECT: return "tcp connect fail";
    case HCCL_E_ROCE_CONNECT: return "roce connect fail";
    case HCCL_E_TCP_TRANSFER: return "tcp transfer fail";
    case HCCL_E_ROCE_TRANSFER: return "roce transfer fail";
    case HCCL_E_RUNTIME: return "call runtime api fail";
    case HCCL_E_DRV: return "call driver api fail";
    case HCCL_E_PROFILING: return "call profiling api fail";
    case HCCL_E_CCE: return "call cce api fail";
    case HCCL_E_NETWORK: return "call network api fail";
    case HCCL_E_AGAIN: return "try again";
    case HCCL_E_REMOTE: return "error cqe";
    case HCCL_E_SUSPENDING: return "error communicator suspending";
    default: return "unknown error";
    }
}

ACLRT_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (rankSize == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "rankSize is NULL");
    *rankSize = c->nranks;
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (rank == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "rank is NULL");
    *rank = c->rank;
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (commName == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "commName is NULL");
    memcpy(commName, c->name, strlen(c->name) + 1);
    return HCCL_SUCCESS;
}

ACLRT_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    ACLRT_ENTER();
    struct aclrt_hccl_comm *c;
    HcclResult r = aclrt_hccl_comm_get(comm, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (asyncError == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "asyncError is NULL");
    if (c->coll != NULL && atomic_load_explicit(&c->async_error, memory_order_acquire) == HCCL_SUCCESS) {
        /* The backend's engine keeps its own (hccl_backend.h): a failure there is the communicator's from now on. */
        char why[ACLRT_BACKEND_COLL_WHY] = "";
        int e = aclrt_rt.backend->coll->comm_error(c->coll, why);
        if (e != HCCL_SUCCESS)
            aclrt_hccl_comm_set_error(c, (HcclResult)e, why);
    }
    *asyncError = (HcclResult)atomic_load_explicit(&c->async_error, memory_order_acquire);
    return HCCL_SUCCESS;
}

#endif /* ACLRT_IMPL_HCCL_HCCL_COMM_H */
