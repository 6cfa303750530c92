/*
 * impl/shm/allow_list.h - the pid allow-list of a segment: which processes
 * may import what another process exports.
 *
 * The list lives in the segment's header (segment.h), so the importer
 * checks it in its own process: the exporter says at export whether imports
 * check it (`check_pids`, published with the header), and adds process ids
 * (aclrtIpcMemSetImportPid, aclrtNotifySetImportPid,
 * aclrtMemSetPidToShareableHandle and their InterServer forms) up to
 * ACLRT_IPC_MAX_PIDS. Entries are never removed; the count publishes them.
 */
#ifndef ACLRT_IMPL_SHM_ALLOW_LIST_H
#define ACLRT_IMPL_SHM_ALLOW_LIST_H

#include "../core/base.h"
#include "../core/error.h"
#include "segment.h"

/*
 * The exporter says whether imports check the allow-list, once the header
 * is filled (before its key or handle is out; a notify's later exports may
 * say it again).
 */
ACLRT_INLINE void aclrt_ipc_set_check_pids(struct aclrt_ipc_page *page, bool check)
{
    /* Release: pairs with the importer's acquire (aclrt_ipc_pid_allowed); the header is filled before. */
    atomic_store_explicit(&page->check_pids, check ? 1u : 0u, memory_order_release);
}

/* The pid allow-list: may this process import? */
ACLRT_INTERNAL bool aclrt_ipc_pid_allowed(const struct aclrt_ipc_page *page)
{
    /* Acquire: pairs with the exporter's release store of the flag (after the header was filled). */
    if (!atomic_load_explicit(&page->check_pids, memory_order_acquire))
        return true;
    int32_t me = (int32_t)getpid();
    /* Acquire: pairs with the release that published the count after its entries (aclrt_ipc_allow). */
    uint32_t n = atomic_load_explicit(&page->pid_count, memory_order_acquire);
    for (uint32_t i = 0; i < n && i < ACLRT_IPC_MAX_PIDS; i++)
        if (atomic_load_explicit(&page->pids[i], memory_order_relaxed) == me)
            return true;
    return false;
}

/* Serializes additions to allow-lists (aclrt_ipc_allow). */
static pthread_mutex_t aclrt_ipc_allow_lock = PTHREAD_MUTEX_INITIALIZER;

/* Add pids to a segment's allow-list (the exporter's). */
ACLRT_INTERNAL aclError aclrt_ipc_allow(struct aclrt_ipc_seg *seg, const int32_t *pid, size_t num)
{
    if (num > ACLRT_IPC_MAX_PIDS) /* before reading them: the array may be shorter than a wrong count */
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the allow-list takes at most %u process ids (%zu given)",
                          ACLRT_IPC_MAX_PIDS, num);
    for (size_t i = 0; i < num; i++)
        if (pid[i] <= 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "pid[%zu] = %d is not a process id", i, (int)pid[i]);
    struct aclrt_ipc_page *page = seg->page;
    pthread_mutex_lock(&aclrt_ipc_allow_lock);
    uint32_t n = atomic_load_explicit(&page->pid_count, memory_order_relaxed);
    if (num > ACLRT_IPC_MAX_PIDS - n) {
        pthread_mutex_unlock(&aclrt_ipc_allow_lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the allow-list takes at most %u process ids (%u already, %zu more)",
                          ACLRT_IPC_MAX_PIDS, n, num);
    }
    for (size_t i = 0; i < num; i++)
        atomic_store_explicit(&page->pids[n + i], pid[i], memory_order_relaxed);
    /* Release: pairs with the importer's acquire of the count (aclrt_ipc_pid_allowed). */
    atomic_store_explicit(&page->pid_count, n + (uint32_t)num, memory_order_release);
    pthread_mutex_unlock(&aclrt_ipc_allow_lock);
    return ACL_SUCCESS;
}

/*
 * The InterServer form: every server's pids join the allow-list (one host:
 * the server id is not checked). The whole list is checked first.
 */
static aclError aclrt_ipc_allow_servers(struct aclrt_ipc_seg *seg, const aclrtServerPid *servers, size_t num)
{
    for (size_t i = 0; i < num; i++)
        if (servers[i].pid == NULL || servers[i].num == 0)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "serverPids[%zu] has no pids (pid NULL or num 0)", i);
    for (size_t i = 0; i < num; i++) {
        aclError rc = aclrt_ipc_allow(seg, servers[i].pid, servers[i].num);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

/*
 * The list a SetImportPid call gives (pids), or its InterServer form
 * (servers): checked before the call looks up what it names.
 */
ACLRT_INTERNAL aclError aclrt_ipc_allow_args(const int32_t *pids, const aclrtServerPid *servers, size_t num)
{
    if (pids == NULL && servers == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the process id list is NULL");
    if (num == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "num is 0");
    return ACL_SUCCESS;
}

/* Add that list to seg's allow-list. */
ACLRT_INTERNAL aclError aclrt_ipc_allow_from(struct aclrt_ipc_seg *seg, const int32_t *pids,
                                             const aclrtServerPid *servers, size_t num)
{
    return pids != NULL ? aclrt_ipc_allow(seg, pids, num) : aclrt_ipc_allow_servers(seg, servers, num);
}

#endif /* ACLRT_IMPL_SHM_ALLOW_LIST_H */
