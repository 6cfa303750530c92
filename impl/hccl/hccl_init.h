/*
 * impl/hccl/hccl_init.h - making and destroying communicators: root infos,
 * HcclCommInitRootInfo(Config), HcclCommInitAll, rank tables
 * (HcclCommInitClusterInfo), sub-communicators, HcclCommDestroy.
 *
 * A root info (4108 bytes, copied between processes as plain bytes) holds
 * a meeting id (hccl_rendezvous.h), the process that made it (host name,
 * pid) and, in an MPI job, that process's world rank:
 *
 *     0  16  "aclrt-hccl-root"   40  16  meeting id
 *    16   4  format version (1)  56  64  host name (NUL-terminated)
 *    20   4  pid                 120   8  the process's random number (pid
 *    24   4  world rank (-1: not           and host name can repeat across
 *            in an MPI job)                containers on several hosts)
 *    28   4  world size          128 128  the backend engine's id (NCCL's
 *    32   8  hash of the host name           ncclUniqueId), or zero
 *                                    256  ... zero
 *
 * HCCL's communicators live on devices. On the host backend ours move data
 * with the CPU in the memory it gives devices (hccl_local.h, hccl_engine.h);
 * on a backend with a collective engine of its own (the cuda backend's
 * NCCL) the engine makes the communicator and moves the data on the
 * devices (hccl_backend.h).
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_INIT_H
#define ACLRT_IMPL_HCCL_HCCL_INIT_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/thread.h"
#include "../context/device.h"
#include "../system/init.h"
#include "hccl_backend.h"
#include "hccl_comm.h"
#include "hccl_engine.h"
#include "hccl_local.h"
#include "hccl_rendezvous.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ACLRT_HCCL_ROOT_TAG "aclrt-hccl-root"
#define ACLRT_HCCL_ROOT_VERSION 1u
#define ACLRT_HCCL_ROOT_ENGINE_ID 128u /* where a root info holds the backend engine's id */

struct aclrt_hccl_root_wire {
    char tag[16];
    uint32_t version;
    uint32_t pid;
    int32_t world_rank;
    int32_t world_size;
    uint64_t host_hash;
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    char host[64];
    uint64_t process_nonce;
};

_Static_assert(offsetof(struct aclrt_hccl_root_wire, process_nonce) == 120, "the root info's layout above");

_Static_assert(sizeof(struct aclrt_hccl_root_wire) <= ACLRT_HCCL_ROOT_ENGINE_ID, "the wire form, then the engine's id");
_Static_assert(ACLRT_HCCL_ROOT_ENGINE_ID + ACLRT_BACKEND_COLL_ID <= sizeof(HcclRootInfo), "a root info holds both");

static uint64_t aclrt_hccl_hash(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static void aclrt_hccl_host(char *host, size_t cap, uint64_t *hash)
{
    memset(host, 0, cap);
    if (gethostname(host, cap - 1) != 0)
        snprintf(host, cap, "localhost");
    *hash = aclrt_hccl_hash(host, strlen(host), 14695981039346656037ull);
}

/* A random number drawn once per process (and again in a forked child, whose pid differs). */
static uint64_t aclrt_hccl_process_nonce(void)
{
    static _Atomic uint64_t nonce;
    static _Atomic uint32_t nonce_pid;
    uint32_t pid = (uint32_t)getpid();
    uint64_t v = atomic_load_explicit(&nonce, memory_order_acquire);
    if (v != 0 && atomic_load_explicit(&nonce_pid, memory_order_relaxed) == pid)
        return v;
    uint64_t r = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f == NULL || fread(&r, sizeof r, 1, f) != 1)
        r = aclrt_hccl_hash(&pid, sizeof pid, aclrt_now_ns());
    if (f != NULL)
        fclose(f);
    r |= 1; /* never 0: 0 means not drawn */
    /* Two threads may draw at once: the first store wins, both return it. */
    uint64_t expected = v;
    if (atomic_compare_exchange_strong_explicit(&nonce, &expected, r, memory_order_acq_rel, memory_order_acquire))
        expected = r;
    atomic_store_explicit(&nonce_pid, pid, memory_order_relaxed);
    return expected;
}

/* A fresh meeting id: pid, time, a counter, and the host. */
static void aclrt_hccl_new_uid(uint8_t *uid, uint64_t host_hash)
{
    static _Atomic uint64_t counter;
    uint64_t a = ((uint64_t)getpid() << 32) ^ atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
    uint64_t b = aclrt_hccl_hash(&a, sizeof a, aclrt_now_ns() ^ host_hash);
    memcpy(uid, &a, 8);
    memcpy(uid + 8, &b, 8);
}

/* A meeting id derived from another one and some bytes (sub-communicators, rank tables). */
static void aclrt_hccl_derive_uid(uint8_t *uid, const void *from, size_t n, uint64_t salt)
{
    uint64_t a = aclrt_hccl_hash(from, n, 14695981039346656037ull ^ salt);
    uint64_t b = aclrt_hccl_hash(from, n, a ^ 0x9e3779b97f4a7c15ull);
    memcpy(uid, &a, 8);
    memcpy(uid + 8, &b, 8);
}

ACLRT_API HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    ACLRT_ENTER();
    if (rootInfo == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "rootInfo is NULL");
    struct aclrt_hccl_root_wire w;
    memset(&w, 0, sizeof w);
    memcpy(w.tag, ACLRT_HCCL_ROOT_TAG, sizeof ACLRT_HCCL_ROOT_TAG);
    w.version = ACLRT_HCCL_ROOT_VERSION;
    w.pid = (uint32_t)getpid();
    w.world_rank = -1;
    aclrt_hccl_host(w.host, sizeof w.host, &w.host_hash);
    w.process_nonce = aclrt_hccl_process_nonce();
    if (aclrt_hccl_in_mpi_job()) {
        int rank = -1, size = 0;
        if (aclrt_hccl_mpi_ready(&rank, &size) == HCCL_SUCCESS)
            w.world_rank = rank, w.world_size = size;
        else
            (void)aclrt_errmsg_take(); /* in-process ranks still work; joiners elsewhere will say why */
    }
    aclrt_hccl_new_uid(w.uid, w.host_hash);
    HcclResult r;
    const struct aclrt_backend_coll *e = aclrt_hccl_coll(&r);
    if (r != HCCL_SUCCESS)
        return r;
    uint8_t id[ACLRT_BACKEND_COLL_ID];
    char why[ACLRT_BACKEND_COLL_WHY] = "";
    memset(id, 0, sizeof id);
    int rc = e != NULL ? e->unique_id(id, why) : HCCL_SUCCESS;
    if (rc != HCCL_SUCCESS)
        return aclrt_hccl_fail((HcclResult)rc, "%s: %s", e->name, why);
    memset(rootInfo, 0, sizeof *rootInfo);
    memcpy(rootInfo->internal, &w, sizeof w);
    memcpy(rootInfo->internal + ACLRT_HCCL_ROOT_ENGINE_ID, id, sizeof id);
    return HCCL_SUCCESS;
}

/* The settings of a config that apply here; HCCL_E_PARA if it is no initialized config. */
static HcclResult aclrt_hccl_apply_config(struct aclrt_hccl_comm *c, const HcclCommConfig *config)
{
    c->exec_timeout_ns = aclrt_hccl_exec_timeout_ns();
    if (config == NULL)
        return HCCL_SUCCESS;
    /* The header HcclCommConfigInit wrote: size, magic word, version (the config's first bytes). */
    const char *head = (const char *)(const void *)config;
    size_t size;
    uint32_t magic, version;
    memcpy(&size, head, sizeof size);
    memcpy(&magic, head + sizeof size, sizeof magic);
    memcpy(&version, head + sizeof size + sizeof magic, sizeof version);
    if (magic != HCCL_COMM_CONFIG_MAGIC_WORD || size < offsetof(HcclCommConfig, hcclUdi))
        return aclrt_hccl_fail(HCCL_E_PARA, "config was not initialized by HcclCommConfigInit (magic %#x, size %zu)",
                               magic, size);
    if (config->hcclCommName[0] != '\0') {
        if (memchr(config->hcclCommName, '\0', sizeof config->hcclCommName) == NULL)
            return aclrt_hccl_fail(HCCL_E_PARA, "hcclCommName is not NUL-terminated within %u bytes",
                                   COMM_NAME_MAX_LENGTH);
        snprintf(c->name, sizeof c->name, "%s", config->hcclCommName);
    }
    if (size >= offsetof(HcclCommConfig, hcclAlgo) && config->hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
        if (config->hcclExecTimeOut < 0)
            return aclrt_hccl_fail(HCCL_E_PARA, "hcclExecTimeOut %d is negative", config->hcclExecTimeOut);
        /* 0: never time out. */
        c->exec_timeout_ns = config->hcclExecTimeOut == 0 ? UINT64_MAX / 4 : (uint64_t)config->hcclExecTimeOut * 1000000000ull;
    }
    return HCCL_SUCCESS;
}

/* A communicator to join with; the name is the meeting id unless a config named it. */
static HcclResult aclrt_hccl_comm_new(uint32_t nranks, uint32_t rank, const uint8_t *uid, const HcclCommConfig *config,
                                      struct aclrt_hccl_comm **out)
{
    const char *api = aclrt_tls.api;
    if (nranks == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "nRanks is 0");
    if (rank >= nranks)
        return aclrt_hccl_fail(HCCL_E_PARA, "rank %u is out of range: nRanks is %u", rank, nranks);
    struct aclrt_hccl_comm *c = (struct aclrt_hccl_comm *)calloc(1, sizeof *c);
    if (c == NULL)
        return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
    c->rank = rank, c->nranks = nranks;
    pthread_mutex_init(&c->regions_lock, NULL);
    memcpy(c->uid, uid, ACLRT_HCCL_UID_BYTES);
    int n = snprintf(c->name, sizeof c->name, "hccl-");
    for (int i = 0; i < ACLRT_HCCL_UID_BYTES; i++)
        n += snprintf(c->name + n, sizeof c->name - (size_t)n, "%02x", uid[i]);
    if (aclrtGetDevice(&c->device) != ACL_SUCCESS) {
        (void)aclrt_errmsg_take();
        c->device = -1;
    }
    aclrt_tls.api = api;
    HcclResult r = aclrt_hccl_apply_config(c, config);
    if (r != HCCL_SUCCESS) {
        free(c);
        return r;
    }
    *out = c;
    return HCCL_SUCCESS;
}

/* Joins and, on success, publishes the handle. */
static HcclResult aclrt_hccl_join(struct aclrt_hccl_comm *c, bool host, int host_world, HcclComm *comm)
{
    HcclResult r = aclrt_hccl_meet_join(c->uid, c, host, host_world);
    if (r != HCCL_SUCCESS) {
        free(c);
        return r;
    }
    aclrt_hccl_live_add(c);
    *comm = c;
    return HCCL_SUCCESS;
}

static HcclResult aclrt_hccl_init_root(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                       const HcclCommConfig *config, HcclComm *comm)
{
    if (rootInfo == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "rootInfo is NULL");
    if (comm == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "comm is NULL");
    struct aclrt_hccl_root_wire w;
    memcpy(&w, rootInfo->internal, sizeof w);
    if (memcmp(w.tag, ACLRT_HCCL_ROOT_TAG, sizeof ACLRT_HCCL_ROOT_TAG) != 0 || w.version != ACLRT_HCCL_ROOT_VERSION)
        return aclrt_hccl_fail(HCCL_E_PARA, "rootInfo was not made by HcclGetRootInfo");
    char host[64];
    uint64_t hash;
    aclrt_hccl_host(host, sizeof host, &hash);
    bool here = w.pid == (uint32_t)getpid() && w.host_hash == hash && strncmp(w.host, host, sizeof host) == 0 &&
                w.process_nonce == aclrt_hccl_process_nonce();
    HcclResult r;
    const struct aclrt_backend_coll *e = aclrt_hccl_coll(&r);
    if (r != HCCL_SUCCESS)
        return r;
    uint8_t id[ACLRT_BACKEND_COLL_ID], none[ACLRT_BACKEND_COLL_ID];
    memcpy(id, rootInfo->internal + ACLRT_HCCL_ROOT_ENGINE_ID, sizeof id);
    memset(none, 0, sizeof none);
    if (e != NULL && memcmp(id, none, sizeof id) == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "rootInfo holds no %s id: it was made by a process on another backend "
                               "(every rank must run the same backend)", e->name);
    struct aclrt_hccl_comm *c;
    r = aclrt_hccl_comm_new(nRanks, rank, w.uid, config, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (e == NULL)
        return aclrt_hccl_join(c, here, w.world_rank, comm);
    (void)aclrt_hccl_board_join(w.uid, 1); /* a sub-communicator asks how many ranks are here */
    return aclrt_hccl_coll_join(e, c, id, comm);
}

ACLRT_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm)
{
    ACLRT_ENTER();
    return aclrt_hccl_init_root(nRanks, rootInfo, rank, NULL, comm);
}

ACLRT_API HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                                const HcclCommConfig *config, HcclComm *comm)
{
    ACLRT_ENTER();
    if (config == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "config is NULL");
    return aclrt_hccl_init_root(nRanks, rootInfo, rank, config, comm);
}

ACLRT_API HcclResult HcclGetRootInfoScalable(HcclRootInfo *rootInfo)
{
    ACLRT_ENTER();
    return HcclGetRootInfo(rootInfo);
}

/* Several roots spread the rendezvous on a large cluster; here the first root info names the communicator. */
ACLRT_API HcclResult HcclCommInitRootInfoScalable(uint32_t nRanks, uint32_t nRoot, const HcclRootInfo *rootInfoList,
                                                  uint32_t rank, uint32_t nExtRoot, const HcclCommConfig *config,
                                                  HcclComm *comm)
{
    ACLRT_ENTER();
    (void)nExtRoot;
    if (nRoot == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "nRoot is 0");
    return aclrt_hccl_init_root(nRanks, rootInfoList, rank, config, comm);
}

ACLRT_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    ACLRT_ENTER();
    if (devices == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "devices is NULL");
    if (comms == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "comms is NULL");
    if (ndev == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "ndev is 0");
    uint32_t count = 0;
    aclError rc = aclrtGetDeviceCount(&count);
    ACLRT_ENTER(); /* messages name this call, not the one it made */
    if (rc != ACL_SUCCESS)
        return aclrt_hccl_fail(HCCL_E_RUNTIME, "the device count is not available");
    for (uint32_t i = 0; i < ndev; i++) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= count)
            return aclrt_hccl_fail(HCCL_E_PARA, "devices[%u] = %d is no device (the runtime has %u)", i, devices[i],
                                   count);
        for (uint32_t j = 0; j < i; j++)
            if (devices[j] == devices[i])
                return aclrt_hccl_fail(HCCL_E_PARA, "device %d is named twice", devices[i]);
    }
    char host[64];
    uint64_t hash;
    aclrt_hccl_host(host, sizeof host, &hash);
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    aclrt_hccl_new_uid(uid, hash);
    struct aclrt_hccl_comm **cs = (struct aclrt_hccl_comm **)calloc(ndev, sizeof *cs);
    struct aclrt_hccl_team *t = NULL;
    HcclResult r = cs == NULL ? aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory") : HCCL_SUCCESS;
    for (uint32_t i = 0; r == HCCL_SUCCESS && i < ndev; i++) {
        r = aclrt_hccl_comm_new(ndev, i, uid, NULL, &cs[i]);
        if (r == HCCL_SUCCESS)
            cs[i]->device = devices[i];
    }
    const struct aclrt_backend_coll *e = r == HCCL_SUCCESS ? aclrt_hccl_coll(&r) : NULL;
    if (e != NULL) {
        r = aclrt_hccl_coll_init_all(e, cs, ndev); /* frees them on failure */
        for (uint32_t i = 0; r == HCCL_SUCCESS && i < ndev; i++)
            comms[i] = cs[i];
        free(cs);
        return r;
    }
    if (r == HCCL_SUCCESS && (t = aclrt_hccl_team_new(ndev)) == NULL)
        r = aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
    for (uint32_t i = 0; r == HCCL_SUCCESS && i < ndev; i++)
        r = aclrt_hccl_engine_use(true);
    if (r != HCCL_SUCCESS) {
        for (uint32_t i = 0; cs != NULL && i < ndev; i++)
            free(cs[i]);
        free(cs);
        return r;
    }
    for (uint32_t i = 0; i < ndev; i++) {
        cs[i]->team = t;
        aclrt_hccl_live_add(cs[i]);
        comms[i] = cs[i];
    }
    free(cs);
    return HCCL_SUCCESS;
}

/*
 * A rank table (JSON) names the ranks of a cluster: "rank_id" entries under
 * "server_list"/"device". The communicator's size is the number of
 * "rank_id" entries; its meeting id comes from the file's bytes, so every
 * rank reading the same file meets the others. Ranks are threads of one
 * process, or, in an MPI job, processes whose world rank is their rank.
 */
static HcclResult aclrt_hccl_init_cluster(const char *clusterInfo, uint32_t rank, const HcclCommConfig *config,
                                          HcclComm *comm)
{
    if (clusterInfo == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "clusterInfo is NULL");
    if (comm == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "comm is NULL");
    FILE *f = fopen(clusterInfo, "rb");
    if (f == NULL)
        return aclrt_hccl_fail(HCCL_E_OPEN_FILE_FAILURE, "the rank table %s cannot be opened", clusterInfo);
    char *text = (char *)malloc(1 << 20);
    size_t len = text != NULL ? fread(text, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (text == NULL)
        return aclrt_hccl_fail(HCCL_E_MEMORY, "out of memory");
    text[len] = '\0';
    uint32_t nranks = 0;
    for (const char *p = text; (p = strstr(p, "\"rank_id\"")) != NULL; p += 9)
        nranks++;
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    aclrt_hccl_derive_uid(uid, text, len, 0x72616e6b);
    free(text);
    if (nranks == 0)
        return aclrt_hccl_fail(HCCL_E_PARA, "the rank table %s names no rank (no \"rank_id\")", clusterInfo);
    HcclResult r;
    const struct aclrt_backend_coll *e = aclrt_hccl_coll(&r);
    if (r != HCCL_SUCCESS)
        return r;
    struct aclrt_hccl_comm *c;
    r = aclrt_hccl_comm_new(nranks, rank, uid, config, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (e != NULL && aclrt_hccl_in_mpi_job()) {
        free(c);
        return aclrt_hccl_fail(HCCL_E_NOT_SUPPORT, "through %s a rank table's communicator is made of threads of one "
                               "process (across processes: HcclGetRootInfo and HcclCommInitRootInfo)", e->name);
    }
    if (e != NULL)
        return aclrt_hccl_coll_meet_here(e, c, comm);
    int world_rank = -1, world_size = 0;
    bool mpi = aclrt_hccl_in_mpi_job() && aclrt_hccl_mpi_ready(&world_rank, &world_size) == HCCL_SUCCESS &&
               world_size > 1;
    (void)aclrt_errmsg_take();
    return aclrt_hccl_join(c, mpi ? world_rank == 0 : true, mpi ? 0 : -1, comm);
}

ACLRT_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    ACLRT_ENTER();
    return aclrt_hccl_init_cluster(clusterInfo, rank, NULL, comm);
}

ACLRT_API HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                                   HcclComm *comm)
{
    ACLRT_ENTER();
    if (config == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "config is NULL");
    return aclrt_hccl_init_cluster(clusterInfo, rank, config, comm);
}

ACLRT_API HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds, uint64_t subCommId,
                                             uint32_t subCommRankId, HcclCommConfig *config, HcclComm *subComm)
{
    ACLRT_ENTER();
    if (comm == NULL || rankIds == NULL || subComm == NULL || config == NULL)
        return aclrt_hccl_fail(HCCL_E_PTR, "%s is NULL",
                               comm == NULL ? "comm" : rankIds == NULL ? "rankIds" : subComm == NULL ? "subComm" : "config");
    struct aclrt_hccl_comm *p;
    HcclResult r = aclrt_hccl_comm_get(*comm, &p);
    if (r != HCCL_SUCCESS)
        return r;
    if (rankNum == 0 || rankNum > p->nranks)
        return aclrt_hccl_fail(HCCL_E_PARA, "rankNum %u is out of range (1..%u)", rankNum, p->nranks);
    if (subCommRankId >= rankNum || rankIds[subCommRankId] != p->rank)
        return aclrt_hccl_fail(HCCL_E_PARA, "rankIds[subCommRankId %u] is not this rank (%u)", subCommRankId, p->rank);
    for (uint32_t i = 0; i < rankNum; i++) {
        if (rankIds[i] >= p->nranks)
            return aclrt_hccl_fail(HCCL_E_PARA, "rankIds[%u] = %u is no rank of the communicator", i, rankIds[i]);
        for (uint32_t j = 0; j < i; j++)
            if (rankIds[j] == rankIds[i])
                return aclrt_hccl_fail(HCCL_E_PARA, "rank %u is named twice in rankIds", rankIds[i]);
    }
    uint8_t seed[ACLRT_HCCL_UID_BYTES + 8];
    memcpy(seed, p->uid, ACLRT_HCCL_UID_BYTES);
    memcpy(seed + ACLRT_HCCL_UID_BYTES, &subCommId, 8);
    uint8_t uid[ACLRT_HCCL_UID_BYTES];
    aclrt_hccl_derive_uid(uid, seed, sizeof seed, aclrt_hccl_hash(rankIds, rankNum * sizeof *rankIds, rankNum));
    struct aclrt_hccl_comm *c;
    r = aclrt_hccl_comm_new(rankNum, subCommRankId, uid, config, &c);
    if (r != HCCL_SUCCESS)
        return r;
    if (p->coll != NULL && c->device < 0)
        c->device = p->device; /* a thread with no device set: the member's device in the parent */
    if (p->coll != NULL)
        return aclrt_hccl_coll_sub(p, rankIds, rankNum, subCommRankId, c, subComm);
    /* The sub-communicator's rank 0 hosts the meeting. */
    bool host = p->team != NULL || p->world_ranks[rankIds[0]] == p->world_ranks[p->rank];
    return aclrt_hccl_join(c, host, p->team != NULL ? -1 : p->world_ranks[rankIds[0]], subComm);
}

#endif /* ACLRT_IMPL_HCCL_HCCL_INIT_H */
