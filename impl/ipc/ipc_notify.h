/*
 * impl/ipc/ipc_notify.h - notifies shared between processes:
 * aclrtNotifyGetExportKey, aclrtNotifySetImportPid and
 * aclrtNotifySetImportPidInterServer, aclrtNotifyImportByKey.
 *
 * aclrtNotifyGetExportKey attaches a shared segment (segment.h) to a
 * notify (its first export makes it; later ones give the same key); its
 * key is the segment's. aclrtNotifyImportByKey, in another process, makes
 * a notify of that process's own on the segment: its records are tasks
 * that count one more completed record in the segment (shared_record.h),
 * and only the exporting process waits (notify.h). Imports check the pid
 * allow-list (allow_list.h) unless the export disabled it.
 */
#ifndef ACLRT_IMPL_IPC_IPC_NOTIFY_H
#define ACLRT_IMPL_IPC_IPC_NOTIFY_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../context/context.h"
#include "../shm/allow_list.h"
#include "../shm/segment.h"
#include "../shm/side_table.h"
#include "../sync/notify.h"
#include "../sync/notify_object.h"

static aclError aclrt_notify_key_buffer(const char *key, size_t len)
{
    if (key == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "key is NULL");
    if (len < ACLRT_IPC_KEY_MIN_BUF)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "key buffer of %zu bytes: a key needs %u", len,
                          ACLRT_IPC_KEY_MIN_BUF);
    return ACL_SUCCESS;
}

/* The segment of a notify this process exported (with a reference), or fail. */
static aclError aclrt_notify_exported(aclrtNotify notify, struct aclrt_notify_object *n, struct aclrt_ipc_seg **out)
{
    struct aclrt_ipc_seg *seg = aclrt_ipc_entry_get(&n->ipc);
    if (seg == NULL || !seg->exporter) {
        if (seg != NULL)
            aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "notify %p %s", notify,
                          seg == NULL ? "has not been exported (aclrtNotifyGetExportKey)"
                                      : "was imported: only its exporter sets its allow-list");
    }
    *out = seg;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    ACLRT_ENTER();
    struct aclrt_notify_object *n;
    uint32_t generation;
    aclError rc = aclrt_notify_object_resolve(&aclrt_notify_kind, notify, &n, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_notify_key_buffer(key, len)) != ACL_SUCCESS)
        return rc;
    if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT && flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flags 0x%llx is not ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
                          (unsigned long long)flags);
    struct aclrt_ipc_seg *seg = aclrt_ipc_entry_get(&n->ipc);
    if (seg == NULL) { /* the first export: a segment of its own */
        struct aclrt_ipc_seg *made;
        if ((rc = aclrt_ipc_seg_create(ACLRT_IPC_NOTIFY, &made)) != ACL_SUCCESS)
            return rc;
        struct aclrt_ipc_seg *none = NULL;
        /* Release: pairs with aclrt_ipc_entry_get's acquire; the segment is set up before it is seen. */
        if (!atomic_compare_exchange_strong_explicit(&n->ipc, &none, made, memory_order_acq_rel, memory_order_relaxed))
            aclrt_ipc_seg_unref(made); /* another thread exported it first: its key */
        /* Acquire: pairs with the destroy's retire; a destroy that missed the segment clears it here. */
        if (atomic_load_explicit(&n->hdr.generation, memory_order_acquire) != generation) {
            aclrt_ipc_entry_clear(&n->ipc, true);
            return aclrt_notify_object_gone(&aclrt_notify_kind, notify);
        }
        seg = aclrt_ipc_entry_get(&n->ipc);
        if (seg == NULL)
            return aclrt_notify_object_gone(&aclrt_notify_kind, notify);
    }
    if (!seg->exporter) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "notify %p was imported from another process: it cannot be "
                                                      "exported again",
                          notify);
    }
    aclrt_ipc_set_check_pids(seg->page, flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION);
    memcpy(key, seg->key, ACLRT_IPC_KEY_LEN + 1);
    aclrt_ipc_seg_unref(seg);
    return ACL_SUCCESS;
}

/* aclrtNotifySetImportPid(InterServer): process ids (pids) or server entries (servers) join the allow-list. */
static aclError aclrt_notify_set_import(aclrtNotify notify, const int32_t *pids, const aclrtServerPid *servers,
                                        size_t num)
{
    struct aclrt_notify_object *n;
    uint32_t generation;
    aclError rc = aclrt_notify_object_resolve(&aclrt_notify_kind, notify, &n, &generation);
    if (rc != ACL_SUCCESS || (rc = aclrt_ipc_allow_args(pids, servers, num)) != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_seg *seg = NULL;
    if ((rc = aclrt_notify_exported(notify, n, &seg)) != ACL_SUCCESS)
        return rc;
    rc = aclrt_ipc_allow_from(seg, pids, servers, num);
    aclrt_ipc_seg_unref(seg);
    return rc;
}

ACLRT_API aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    ACLRT_ENTER();
    return aclrt_notify_set_import(notify, pid, NULL, num);
}

ACLRT_API aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids, size_t num)
{
    ACLRT_ENTER();
    return aclrt_notify_set_import(notify, NULL, serverPids, num);
}

ACLRT_API aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    ACLRT_ENTER();
    if (notify == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notify (output) is NULL");
    if (key == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "key is NULL");
    if (flags != ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT && flags != ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flags 0x%llx is not ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT or _ENABLE_PEER_ACCESS",
                          (unsigned long long)flags);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx); /* before the segment: a call without a device opens nothing */
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_open(key, ACLRT_IPC_KEY_MIN_BUF, ACLRT_IPC_NOTIFY, &seg)) != ACL_SUCCESS)
        return rc;
    if (!aclrt_ipc_pid_allowed(seg->page)) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_NO_PERMISSION,
                          "process %d is not on the allow-list of notify key \"%.64s\" (the exporter adds it with "
                          "aclrtNotifySetImportPid, or exports with ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)",
                          (int)getpid(), key);
    }
    aclrtNotify made;
    if ((rc = aclrt_notify_object_create(&aclrt_notify_kind, &made)) != ACL_SUCCESS) {
        aclrt_ipc_seg_unref(seg);
        return rc;
    }
    struct aclrt_notify_object *n = (struct aclrt_notify_object *)aclrt_table_lookup(&aclrt_notifies, made);
    /* Release: pairs with aclrt_ipc_entry_get's acquire (the handle is not out yet). */
    atomic_store_explicit(&n->ipc, seg, memory_order_release);
    *notify = made;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_IPC_IPC_NOTIFY_H */
