/*
 * impl/ipc/ipc_physmem.h - physical memory shared between processes:
 * aclrtMemExportToShareableHandle, aclrtMemSetPidToShareableHandle,
 * aclrtMemImportFromShareableHandle, aclrtDeviceGetBareTgid.
 *
 * Sharing between processes (docs/SEMANTICS.md, IPC): exporting gives a
 * block a segment (segment.h, kind ACLRT_IPC_PHYSICAL) whose header names the
 * block's file (a descriptor of the export's own, its device and inode, its
 * size and granularity) and holds the pid allow-list. The shareable handle
 * packs what an importer needs to find that header in 64 bits:
 *   bits 63..42  the exporter's pid (pids are below 2^22, PID_MAX_LIMIT)
 *   bits 41..22  the header's descriptor number in the exporter
 *   bits 21..0   the first 22 bits of the header's random bytes
 * An importer opens /proc/<pid>/fd/<n> (segment.h), accepts the header only if
 * its kind, owner and random bits match, checks its own pid against the
 * allow-list, then opens the block's file the same way and checks its inode:
 * its block is the same file, so mappings in both processes are the same
 * memory. The random bits make a stale handle (its descriptor number
 * reused by a later export) name nothing; they are no secret, and need not
 * be: the allow-list is checked whatever the handle, and the kernel lets
 * only processes of the same user that may inspect the exporter open its
 * files at all. The export ends with the exporter's handle
 * (aclrtFreePhysical, aclFinalize, exit); imported blocks are files of
 * their own and live on until freed in their process. Importing in the
 * exporting process is refused, as the runtime documents.
 *
 * Handles exported and imported are handles of physmem.h, under its lock.
 */
#ifndef ACLRT_IMPL_IPC_IPC_PHYSMEM_H
#define ACLRT_IMPL_IPC_IPC_PHYSMEM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"
#include "../shm/allow_list.h"
#include "../shm/segment.h"
#include "../memory/physmem.h"

#include <fcntl.h>
#include <sys/stat.h>

#define ACLRT_SHARE_PID_SHIFT 42         /* a shareable handle: pid << 42 | descriptor << 22 | 22 random bits */
#define ACLRT_SHARE_FD_SHIFT 22
#define ACLRT_SHARE_FD_LIMIT (1u << 20)
#define ACLRT_SHARE_PID_LIMIT (1u << 22)
#define ACLRT_SHARE_TAG_MASK ((1u << 22) - 1)

ACLRT_INTERNAL aclError aclrt_pmem_export(aclrtDrvMemHandle handle, uint64_t flags, uint64_t *shareableHandle);
ACLRT_INTERNAL aclError aclrt_pmem_set_pids(uint64_t shareableHandle, int32_t *pid, size_t pidNum);
ACLRT_INTERNAL aclError aclrt_pmem_import(uint64_t shareableHandle, struct aclrt_device *dev, aclrtDrvMemHandle *handle);

/* The live handle of this process exported as, or imported from, `shareable`. */
static struct aclrt_pmem_handle *aclrt_pmem_shared(uint64_t shareable)
{
    for (size_t i = 0; i < aclrt_physmem.handles.count; i++) {
        struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)aclrt_physmem.handles.items[i];
        if (h->shareable != 0 && h->shareable == shareable)
            return h;
    }
    return NULL;
}

/* Export h (the lock held): a segment naming its block's file, and the shareable handle naming the segment. */
static aclError aclrt_pmem_export_locked(struct aclrt_pmem_handle *h, bool check_pids)
{
    struct aclrt_pmem *mem = h->mem;
    struct stat st;
    if (fstat(mem->fd, &st) != 0)
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot export the block's memory file (%s)", strerror(errno));
    struct aclrt_ipc_seg *seg;
    aclError rc = aclrt_ipc_seg_create(ACLRT_IPC_PHYSICAL, &seg);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_page *page = seg->page;
    int fd = atomic_load_explicit(&seg->fd, memory_order_relaxed); /* this thread's own segment */
    if ((unsigned)fd >= ACLRT_SHARE_FD_LIMIT || (uint32_t)page->owner >= ACLRT_SHARE_PID_LIMIT) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR,
                          "descriptor %d or process id %d does not fit a shareable handle (2^20 and 2^22 at most)",
                          fd, (int)page->owner);
    }
    /* A descriptor of the export's own: the block's may close first (a mapping outlives the handle). */
    seg->data_fd = fcntl(mem->fd, F_DUPFD_CLOEXEC, 0);
    if (seg->data_fd < 0) {
        int err = errno;
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot export the block's memory file (%s)", strerror(err));
    }
    page->data_fd = seg->data_fd;
    page->data_size = mem->size;
    page->data_dev = (uint64_t)st.st_dev;
    page->data_ino = (uint64_t)st.st_ino;
    page->data_granularity = mem->granularity;
    page->data_host = mem->device == NULL;
    page->data_attr = (uint32_t)mem->attr;
    page->nonce[2] &= 0x3f; /* the handle carries 22 random bits: the rest of this byte is 0 for the comparison */
    aclrt_ipc_set_check_pids(page, check_pids);
    uint32_t tag = (uint32_t)page->nonce[0] | (uint32_t)page->nonce[1] << 8 | (uint32_t)page->nonce[2] << 16;
    h->share = seg;
    h->shareable = (uint64_t)(uint32_t)page->owner << ACLRT_SHARE_PID_SHIFT | (uint64_t)fd << ACLRT_SHARE_FD_SHIFT | tag;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                   uint64_t flags, uint64_t *shareableHandle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handleType %d must be ACL_MEM_HANDLE_TYPE_NONE", (int)handleType);
    return aclrt_pmem_export(handle, flags, shareableHandle);
}

/* Export handle as a shareable handle (V1, and V2's both kinds). */
ACLRT_INTERNAL aclError aclrt_pmem_export(aclrtDrvMemHandle handle, uint64_t flags, uint64_t *shareableHandle)
{
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (shareableHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "shareableHandle (output) is NULL");
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flags 0x%llx is not ACL_RT_VMM_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
                          (unsigned long long)flags);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_handle_find(handle, NULL);
    if (h == NULL) {
        rc = aclrt_pmem_bad_handle(handle);
    } else if (h->shareable != 0) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "handle %p is already %s shareable handle %llu: one shareable handle per handle", handle,
                        h->imported ? "imported from" : "exported as", (unsigned long long)h->shareable);
    } else if ((rc = aclrt_pmem_export_locked(h, (flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) == 0)) ==
               ACL_SUCCESS) {
        *shareableHandle = h->shareable;
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

ACLRT_API aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    ACLRT_ENTER();
    return aclrt_pmem_set_pids(shareableHandle, pid, pidNum);
}

ACLRT_INTERNAL aclError aclrt_pmem_set_pids(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    if (pid == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pid is NULL");
    if (pidNum == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
    aclError rc;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_shared(shareableHandle);
    if (h == NULL || h->imported)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "shareable handle %llu was not exported by this process (or its memory was freed)",
                        (unsigned long long)shareableHandle);
    else
        rc = aclrt_ipc_allow(h->share, pid, pidNum);
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

/* Open the block an exporter's header names; fd, or -1 with the failure recorded. */
static int aclrt_pmem_import_file(const struct aclrt_ipc_seg *seg, uint64_t shareable)
{
    const struct aclrt_ipc_page *page = seg->page;
    int fd = aclrt_ipc_open_peer_fd(seg->peer, (int)page->data_fd);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == page->data_dev &&
        (uint64_t)st.st_ino == page->data_ino && st.st_size >= 0 && (uint64_t)st.st_size == page->data_size)
        return fd;
    if (fd >= 0)
        close(fd);
    aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the memory of shareable handle %llu is gone (process %d freed it or exited)",
               (unsigned long long)shareable, (int)seg->peer);
    return -1;
}

ACLRT_API aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                     aclrtDrvMemHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_pmem_import(shareableHandle, dev, handle);
}

/* Import shareableHandle as memory of dev (V1, and V2's both kinds). */
ACLRT_INTERNAL aclError aclrt_pmem_import(uint64_t shareableHandle, struct aclrt_device *dev, aclrtDrvMemHandle *handle)
{
    aclError rc;
    int32_t exporter = (int32_t)(shareableHandle >> ACLRT_SHARE_PID_SHIFT);
    int fd = (int)((shareableHandle >> ACLRT_SHARE_FD_SHIFT) & (ACLRT_SHARE_FD_LIMIT - 1));
    uint32_t tag = (uint32_t)shareableHandle & ACLRT_SHARE_TAG_MASK;
    if (exporter == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%llu is not a shareable handle (no process in it)",
                          (unsigned long long)shareableHandle);
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *known = aclrt_pmem_shared(shareableHandle);
    bool imported = known != NULL && known->imported;
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (exporter == (int32_t)getpid()) {
        if (known == NULL)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "shareable handle %llu names no exported physical memory of this process",
                              (unsigned long long)shareableHandle);
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "shareable handle %llu was exported by this process: importing is for other processes only",
                          (unsigned long long)shareableHandle);
    }
    if (imported)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "shareable handle %llu is imported in this process already (one handle per shareable handle; "
                          "free that one first)",
                          (unsigned long long)shareableHandle);
    if ((rc = aclrt_runtime_start()) != ACL_SUCCESS)
        return rc;
    uint8_t nonce[3] = {(uint8_t)tag, (uint8_t)(tag >> 8), (uint8_t)(tag >> 16)};
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_attach(exporter, fd, ACLRT_IPC_PHYSICAL, nonce, sizeof nonce, &seg)) != ACL_SUCCESS)
        return rc; /* ACL_ERROR_RT_IPC_ERROR: no such export (any more) */
    struct aclrt_ipc_page *page = seg->page;
    int mine = -1;
    /* Relaxed: a flag only; the file's inode check below is what keeps a late import off another file. */
    if (atomic_load_explicit(&page->closed, memory_order_relaxed))
        rc = aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the exporter freed the memory of shareable handle %llu",
                        (unsigned long long)shareableHandle);
    else if (!aclrt_ipc_pid_allowed(page))
        rc = aclrt_fail(ACL_ERROR_RT_NO_PERMISSION,
                        "process %d is not on the whitelist of shareable handle %llu (the exporter adds it with "
                        "aclrtMemSetPidToShareableHandle, or exports with ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)",
                        (int)getpid(), (unsigned long long)shareableHandle);
    else if ((mine = aclrt_pmem_import_file(seg, shareableHandle)) < 0)
        rc = ACL_ERROR_RT_IPC_ERROR;
    size_t size = (size_t)page->data_size, granularity = (size_t)page->data_granularity;
    bool host = page->data_host != 0;
    aclrtMemAttr attr = (aclrtMemAttr)page->data_attr;
    aclrt_ipc_seg_unref(seg); /* the file is all an import needs */
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_pmem *mem = (struct aclrt_pmem *)calloc(1, sizeof *mem);
    struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)calloc(1, sizeof *h);
    if (mem == NULL || h == NULL) {
        close(mine);
        free(mem);
        free(h);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory importing shareable handle %llu",
                          (unsigned long long)shareableHandle);
    }
    mem->fd = mine;
    mem->size = size;
    mem->granularity = granularity != 0 ? granularity : aclrt_page_size();
    mem->device = host ? NULL : dev; /* device memory becomes memory of the device asked for (documented) */
    mem->refs = 1;
    mem->attr = attr;
    mem->location.type = host ? ACL_MEM_LOCATION_TYPE_HOST : ACL_MEM_LOCATION_TYPE_DEVICE;
    mem->location.id = host ? 0 : dev->id;
    mem->link = -1;
    h->mem = mem;
    h->shareable = shareableHandle;
    h->imported = true;
    aclrt_physmem_hook();
    pthread_mutex_lock(&aclrt_physmem.lock);
    bool twice = aclrt_pmem_shared(shareableHandle) != NULL; /* another thread imported it meanwhile */
    bool ok = !twice && aclrt_ptr_set_add(&aclrt_physmem.handles, h);
    if (ok)
        h->id = ++aclrt_physmem.next_id;
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (!ok) {
        close(mine);
        free(mem);
        free(h);
        if (twice)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "shareable handle %llu is imported in this process already",
                              (unsigned long long)shareableHandle);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a physical memory handle");
    }
    *handle = aclrt_pmem_handle_value(h);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    ACLRT_ENTER();
    if (pid == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pid (output) is NULL");
    *pid = (int32_t)getpid();
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_IPC_IPC_PHYSMEM_H */
