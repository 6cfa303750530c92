/*
 * impl/ipc/ipc_mem.h - device memory shared between processes:
 * aclrtIpcMemGetExportKey, aclrtIpcMemSetImportPid, aclrtIpcMemSetAttr,
 * aclrtIpcMemImportByKey, aclrtIpcMemClose.
 *
 * Sharing needs the same bytes in both processes, so shareable memory is a
 * memory file from the start: the host backend makes every aclrtMalloc of
 * more than ACLRT_IPC_ARENA_MAX bytes a page-aligned MAP_SHARED mapping of a
 * memfd of its own, and smaller ones blocks of one shared memory file
 * (ipc_arena.h), so that a block of any size can be exported (where that
 * fails, e.g. out of descriptors, it falls back to ordinary memory, which
 * is not shareable). The descriptors kept open for this are capped at a
 * quarter of the process's descriptor limit (RLIMIT_NOFILE), so the
 * program's own files never run out because of them; past the cap,
 * allocations are ordinary. An export of a block that does not start on a
 * page shares the pages it lies on (neighbours' bytes too, as a device
 * shares the granule of an allocation); the importer's pointer is at the
 * block's offset in its first page.
 *
 * An export is a segment (segment.h) whose header says which file (a
 * descriptor of the export's own, dup'ed from the allocation's, so a free
 * does not close it), at which page-aligned offset and how many bytes; its
 * key names the header. An import maps that range of the file MAP_SHARED
 * (whole pages) and registers it as device memory of the importer's current device, so
 * copies, sets and value operations take it (aclrtFree does not: the
 * import ends with aclrtIpcMemClose). The export's pid allow-list is checked
 * at import (ACL_ERROR_RT_NO_PERMISSION) unless it was exported with
 * ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION.
 *
 * A backend whose device memory its driver shares (the cuda backend:
 * cuIpcGetMemHandle) has the ipc_export / ipc_import / ipc_close hooks
 * (backend.h): the export's header then holds the driver's handle of the
 * allocation and the range's offset in it instead of a file, and the import
 * opens that handle (after the same checks: a live key, the allow-list) and
 * registers the range as ACLRT_MEM_IMPORTED device memory; its close ends
 * the driver's mapping once the work launched before it is done. Such a
 * driver may refuse an import in the exporting process itself (CUDA does).
 */
#ifndef ACLRT_IMPL_IPC_IPC_MEM_H
#define ACLRT_IMPL_IPC_IPC_MEM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "../shm/allow_list.h"
#include "../shm/segment.h"
#include "../memory/memory.h"
#include "ipc_arena.h"

#include <sys/resource.h>


/* ------------------------------------------------------------------------
 * Shareable allocations (the host backend's mem_alloc / mem_free)
 * ------------------------------------------------------------------------ */

struct aclrt_ipc_shm {
    uintptr_t base;
    size_t len;
    int fd;
};

/* Segments of this process's exports or imports, unordered. */
struct aclrt_ipc_seg_list {
    struct aclrt_ipc_seg **items;
    size_t count, capacity;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_ipc_shm *items; /* unordered */
    size_t count, capacity;
    struct aclrt_ipc_seg_list exports, imports; /* this process's exports and imports */
} aclrt_ipc_mem = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool aclrt_ipc_grow(void **items, size_t *capacity, size_t count, size_t item)
{
    if (count < *capacity)
        return true;
    size_t cap = *capacity ? *capacity * 2 : 16;
    void *grown = realloc(*items, cap * item);
    if (grown == NULL)
        return false;
    *items = grown;
    *capacity = cap;
    return true;
}

/* How many descriptors shareable allocations may keep open: a quarter of the process's limit. */
static size_t aclrt_ipc_shm_fd_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 1024;
    return (size_t)(rl.rlim_cur / 4);
}

/* Shareable memory of at least `bytes` (page-aligned); false: none (the caller uses ordinary memory). */
ACLRT_INTERNAL bool aclrt_ipc_shm_alloc(size_t bytes, void **out)
{
    if (bytes <= ACLRT_IPC_ARENA_MAX && aclrt_ipc_arena_alloc(bytes, out))
        return true;
    if (bytes > SIZE_MAX - ACLRT_IPC_PAGE)
        return false;
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    bool room = aclrt_ipc_mem.count < aclrt_ipc_shm_fd_budget();
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    if (!room)
        return false;
    size_t len = (bytes + ACLRT_IPC_PAGE - 1) & ~(size_t)(ACLRT_IPC_PAGE - 1);
    int fd = memfd_create("aclrt-device-memory", MFD_CLOEXEC);
    if (fd < 0)
        return false;
    void *p = ftruncate(fd, (off_t)len) == 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (p == MAP_FAILED) {
        close(fd);
        return false;
    }
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    bool ok = aclrt_ipc_grow((void **)&aclrt_ipc_mem.items, &aclrt_ipc_mem.capacity, aclrt_ipc_mem.count,
                             sizeof *aclrt_ipc_mem.items);
    if (ok)
        aclrt_ipc_mem.items[aclrt_ipc_mem.count++] = (struct aclrt_ipc_shm){(uintptr_t)p, len, fd};
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    if (!ok) {
        munmap(p, len);
        close(fd);
        return false;
    }
    *out = p;
    return true;
}

/* Free p if it is shareable memory; false: it is not (the caller frees it its way). */
ACLRT_INTERNAL bool aclrt_ipc_shm_free(void *p)
{
    struct aclrt_ipc_shm found = {0, 0, -1};
    if (aclrt_ipc_arena_free(p))
        return true;
    if (((uintptr_t)p & (ACLRT_IPC_PAGE - 1)) != 0)
        return false; /* shareable memory starts on a page */
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    for (size_t i = 0; i < aclrt_ipc_mem.count; i++) {
        if (aclrt_ipc_mem.items[i].base == (uintptr_t)p) {
            found = aclrt_ipc_mem.items[i];
            aclrt_ipc_mem.items[i] = aclrt_ipc_mem.items[--aclrt_ipc_mem.count];
            break;
        }
    }
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    if (found.fd < 0)
        return false;
    munmap((void *)found.base, found.len);
    close(found.fd);
    return true;
}

/*
 * The shareable allocation holding [addr, addr+size): a descriptor of the
 * caller's own for its file and the offset of addr in it. 0: found; 1: not
 * shareable memory; -1: no descriptor left (errno).
 */
static int aclrt_ipc_shm_find(const void *addr, size_t size, int *fd, size_t *offset)
{
    uintptr_t a = (uintptr_t)addr;
    int rc = aclrt_ipc_arena_find(addr, fd, offset); /* the allocation checks, by the caller, keep [addr, +size) in its block */
    if (rc <= 0)
        return rc;
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    for (size_t i = 0; i < aclrt_ipc_mem.count; i++) {
        const struct aclrt_ipc_shm *m = &aclrt_ipc_mem.items[i];
        if (a >= m->base && a - m->base < m->len && size <= m->len - (a - m->base)) {
            *offset = a - m->base;
            *fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
            rc = *fd >= 0 ? 0 : -1;
            break;
        }
    }
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    return rc;
}

/* ------------------------------------------------------------------------
 * Exports and imports of this process
 * ------------------------------------------------------------------------ */

/* The segment of `key` in the list (and out of it if `remove`), or NULL; under the lock. */
static struct aclrt_ipc_seg *aclrt_ipc_mem_take(struct aclrt_ipc_seg_list *list, const char *key, bool remove)
{
    for (size_t i = 0; i < list->count; i++) {
        struct aclrt_ipc_seg *seg = list->items[i];
        if (strncmp(seg->key, key, ACLRT_IPC_KEY_LEN + 1) == 0) {
            if (remove)
                list->items[i] = list->items[--list->count];
            return seg;
        }
    }
    return NULL;
}

/* Add seg to the list (takes the lock); false: out of memory. */
static bool aclrt_ipc_mem_add(struct aclrt_ipc_seg_list *list, struct aclrt_ipc_seg *seg)
{
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    bool ok = aclrt_ipc_grow((void **)&list->items, &list->capacity, list->count, sizeof *list->items);
    if (ok)
        list->items[list->count++] = seg;
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    return ok;
}

/* ------------------------------------------------------------------------
 * Through a backend's driver (ipc_export / ipc_import / ipc_close)
 * ------------------------------------------------------------------------ */

#define ACLRT_IPC_HANDLE_CUDA 1u /* the page's data_handle is a CUipcMemHandle (the only backend handle so far) */

/* The export of [devPtr, +size) (checked: inside one allocation of ours) by the backend's driver; the key out. */
static aclError aclrt_ipc_mem_export_driver(void *devPtr, size_t size, char *key, uint64_t flags)
{
    struct aclrt_allocation a;
    if (!aclrt_mem_find(devPtr, &a) || a.kind != ACLRT_MEM_DEVICE || a.device == NULL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "%p is device memory the %s backend cannot share: only memory from aclrtMalloc is exported "
                          "(not memory imported from another process, a pool's or mapped physical memory)",
                          devPtr, aclrt_rt.backend->name);
    uint8_t handle[ACLRT_BACKEND_IPC_HANDLE];
    memset(handle, 0, sizeof handle);
    aclError rc = aclrt_rt.backend->ipc_export(a.device, (void *)a.base, handle);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_create(ACLRT_IPC_MEMORY, &seg)) != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_page *page = seg->page;
    page->data_handle_kind = ACLRT_IPC_HANDLE_CUDA;
    memcpy(page->data_handle, handle, sizeof page->data_handle);
    page->data_offset = (uintptr_t)devPtr - a.base;
    page->data_size = size;
    aclrt_ipc_set_check_pids(page, (flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) == 0);
    if (!aclrt_ipc_mem_add(&aclrt_ipc_mem.exports, seg)) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an export");
    }
    memcpy(key, seg->key, ACLRT_IPC_KEY_LEN + 1);
    return ACL_SUCCESS;
}

/* Open the driver's handle the checked segment holds on ctx's device: *block is the exported range here. */
static aclError aclrt_ipc_mem_import_driver(struct aclrt_ipc_seg *seg, struct aclrt_context *ctx, const char *key,
                                            void **block)
{
    const struct aclrt_backend *b = aclrt_rt.backend;
    struct aclrt_ipc_page *page = seg->page;
    if (page->data_handle_kind != ACLRT_IPC_HANDLE_CUDA || b->ipc_import == NULL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "key \"%.64s\" names memory shared by the cuda backend's driver, which the %s backend of "
                          "this process cannot open (both processes must run the same backend)",
                          key, b->name);
    void *base = NULL;
    aclError rc = b->ipc_import(ctx->device, page->data_handle, &base);
    if (rc != ACL_SUCCESS)
        return rc;
    seg->data = base;
    seg->data_size = 0;
    seg->data_device = ctx->device;
    uintptr_t at = (uintptr_t)base + (uintptr_t)page->data_offset;
    if (!aclrt_mem_register(at, (size_t)page->data_size, ACLRT_MEM_IMPORTED, ctx->device)) {
        b->ipc_close(ctx->device, base);
        seg->data = NULL;
        seg->data_device = NULL;
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an import");
    }
    *block = (void *)at;
    return ACL_SUCCESS;
}

/* Let go of an import's segment: a driver's import is closed first (the backend's ipc_close). */
static void aclrt_ipc_import_end(struct aclrt_ipc_seg *seg)
{
    if (seg->data_device != NULL && aclrt_rt.backend != NULL && aclrt_rt.backend->ipc_close != NULL)
        aclrt_rt.backend->ipc_close(seg->data_device, seg->data);
    seg->data = NULL;
    seg->data_device = NULL;
    aclrt_ipc_seg_unref(seg);
}

/* The address the import of seg gave the program. */
static uintptr_t aclrt_ipc_import_block(const struct aclrt_ipc_seg *seg)
{
    if (seg->data_device != NULL)
        return (uintptr_t)seg->data + (uintptr_t)seg->page->data_offset;
    return (uintptr_t)seg->data + seg->page->data_offset % ACLRT_IPC_PAGE;
}

/* aclFinalize: end every import and export of this process, and forget the shareable allocations (freed already). */
ACLRT_INTERNAL void aclrt_ipc_mem_release_all(void)
{
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    for (size_t i = 0; i < aclrt_ipc_mem.imports.count; i++)
        aclrt_ipc_import_end(aclrt_ipc_mem.imports.items[i]); /* the registry forgot them already */
    for (size_t i = 0; i < aclrt_ipc_mem.exports.count; i++)
        aclrt_ipc_seg_unref(aclrt_ipc_mem.exports.items[i]);
    aclrt_ipc_mem.imports.count = aclrt_ipc_mem.exports.count = 0;
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
}

static aclError aclrt_ipc_key_arg(const char *key)
{
    if (key == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "key is NULL");
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    ACLRT_ENTER();
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (key == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "key (output) is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (len < ACLRT_IPC_KEY_MIN_BUF)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "key buffer of %zu bytes: a key needs %u", len,
                          ACLRT_IPC_KEY_MIN_BUF);
    if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flags 0x%llx is not ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
                          (unsigned long long)flags);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_mem_device_of(devPtr, size) == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "[%p, +%zu) is not inside one allocation of device memory from aclrtMalloc", devPtr, size);
    if (aclrt_rt.backend->ipc_export != NULL)
        return aclrt_ipc_mem_export_driver(devPtr, size, key, flags);
    int data_fd;
    size_t offset;
    int found = aclrt_ipc_shm_find(devPtr, size, &data_fd, &offset);
    if (found > 0)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "%p is device memory that cannot be shared: it is not in a memory file (the host backend "
                          "fell back to ordinary memory, out of descriptors or shared memory, or another backend "
                          "allocated it)",
                          devPtr);
    if (found < 0)
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "no descriptor for the export (%s)", strerror(errno));
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_create(ACLRT_IPC_MEMORY, &seg)) != ACL_SUCCESS) {
        close(data_fd);
        return rc;
    }
    seg->data_fd = data_fd;
    seg->page->data_fd = data_fd;
    seg->page->data_offset = offset;
    seg->page->data_size = size;
    aclrt_ipc_set_check_pids(seg->page, (flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION) == 0);
    if (!aclrt_ipc_mem_add(&aclrt_ipc_mem.exports, seg)) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an export");
    }
    memcpy(key, seg->key, ACLRT_IPC_KEY_LEN + 1);
    return ACL_SUCCESS;
}

/* aclrtIpcMemSetImportPid(InterServer): process ids (pids) or server entries (servers) join the allow-list. */
static aclError aclrt_ipc_mem_set_import(const char *key, const int32_t *pids, const aclrtServerPid *servers,
                                         size_t num)
{
    aclError rc = aclrt_ipc_key_arg(key);
    if (rc != ACL_SUCCESS || (rc = aclrt_ipc_allow_args(pids, servers, num)) != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    struct aclrt_ipc_seg *seg = aclrt_ipc_mem_take(&aclrt_ipc_mem.exports, key, false);
    if (seg == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "key \"%.64s\" is not an export of this process (or was closed)",
                        key);
    else
        rc = aclrt_ipc_allow_from(seg, pids, servers, num);
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    return rc;
}

ACLRT_API aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    ACLRT_ENTER();
    return aclrt_ipc_mem_set_import(key, pid, NULL, num);
}

ACLRT_API aclError aclrtIpcMemImportPidInterServer(const char *key, aclrtServerPid *serverPids, size_t num)
{
    ACLRT_ENTER();
    return aclrt_ipc_mem_set_import(key, NULL, serverPids, num);
}

ACLRT_API aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr)
{
    ACLRT_ENTER();
    aclError rc = aclrt_ipc_key_arg(key);
    if (rc != ACL_SUCCESS)
        return rc;
    if (type != ACL_RT_IPC_MEM_ATTR_ACCESS_LINK)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "attribute type %d is not ACL_RT_IPC_MEM_ATTR_ACCESS_LINK",
                          (int)type);
    if (attr > ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "access link %llu is not one of ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_*",
                          (unsigned long long)attr);
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    struct aclrt_ipc_seg *seg = aclrt_ipc_mem_take(&aclrt_ipc_mem.imports, key, false);
    if (seg == NULL)
        seg = aclrt_ipc_mem_take(&aclrt_ipc_mem.exports, key, false);
    if (seg == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "key \"%.64s\" is neither exported nor imported here", key);
    else
        seg->page->attr_link = attr; /* recorded; host memory has one link */
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    return rc;
}

ACLRT_API aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    ACLRT_ENTER();
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr (output) is NULL");
    aclError rc = aclrt_ipc_key_arg(key);
    if (rc != ACL_SUCCESS)
        return rc;
    if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flags 0x%llx is not ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT or _ENABLE_PEER_ACCESS",
                          (unsigned long long)flags);
    struct aclrt_context *ctx;
    if ((rc = aclrt_current_context(&ctx)) != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    bool twice = aclrt_ipc_mem_take(&aclrt_ipc_mem.imports, key, false) != NULL;
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    if (twice)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "key \"%.64s\" is imported in this process already", key);
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_open(key, ACLRT_IPC_KEY_MIN_BUF, ACLRT_IPC_MEMORY, &seg)) != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_page *page = seg->page;
    if (atomic_load_explicit(&page->closed, memory_order_relaxed)) { /* a flag: nothing is read after it */
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the exporter closed key \"%.64s\"", key);
    }
    if (!aclrt_ipc_pid_allowed(page)) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_NO_PERMISSION,
                          "process %d is not on the allow-list of key \"%.64s\" (the exporter adds it with "
                          "aclrtIpcMemSetImportPid, or exports with ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)",
                          (int)getpid(), key);
    }
    if (page->data_handle_kind != 0) {
        void *block = NULL;
        if ((rc = aclrt_ipc_mem_import_driver(seg, ctx, key, &block)) != ACL_SUCCESS) {
            aclrt_ipc_seg_unref(seg);
            return rc;
        }
        if (!aclrt_ipc_mem_add(&aclrt_ipc_mem.imports, seg)) {
            struct aclrt_allocation gone;
            aclrt_mem_unregister((uintptr_t)block, ACLRT_MEM_IMPORTED, &gone);
            aclrt_ipc_import_end(seg);
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an import");
        }
        *devPtr = block;
        return ACL_SUCCESS;
    }
    /* Whole pages from the one the range starts in; the block is at its offset in that page. */
    uint64_t size = page->data_size, delta = page->data_offset % ACLRT_IPC_PAGE, offset = page->data_offset - delta;
    size_t len = (size_t)((delta + size + ACLRT_IPC_PAGE - 1) & ~(uint64_t)(ACLRT_IPC_PAGE - 1));
    int fd = aclrt_ipc_open_peer_fd(seg->peer, (int)page->data_fd);
    struct stat st;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size >= 0 && offset + len <= (uint64_t)st.st_size)
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the memory key \"%.64s\" names is gone (%s)", key, strerror(err));
    }
    seg->data = p;
    seg->data_size = len;
    uintptr_t block = (uintptr_t)p + (uintptr_t)delta;
    if (!aclrt_mem_register(block, (size_t)size, ACLRT_MEM_MAPPED, ctx->device)) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an import");
    }
    if (!aclrt_ipc_mem_add(&aclrt_ipc_mem.imports, seg)) {
        struct aclrt_allocation gone;
        aclrt_mem_unregister(block, ACLRT_MEM_MAPPED, &gone);
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an import");
    }
    *devPtr = (void *)block;
    return ACL_SUCCESS;
}

/* aclrt_ipc_import_end for a deferred release (aclrt_mem_after_work). */
static void aclrt_ipc_import_end_cb(void *seg)
{
    aclrt_ipc_import_end((struct aclrt_ipc_seg *)seg);
}

ACLRT_API aclError aclrtIpcMemClose(const char *key)
{
    ACLRT_ENTER();
    aclError rc = aclrt_ipc_key_arg(key);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_ipc_mem.lock);
    struct aclrt_ipc_seg *seg = aclrt_ipc_mem_take(&aclrt_ipc_mem.imports, key, true);
    bool imported = seg != NULL;
    if (seg == NULL)
        seg = aclrt_ipc_mem_take(&aclrt_ipc_mem.exports, key, true);
    pthread_mutex_unlock(&aclrt_ipc_mem.lock);
    if (seg == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "key \"%.64s\" is neither exported nor imported here", key);
    if (imported) {
        /*
         * The import leaves the registry at once; its mapping goes once the
         * work launched before the close is done, as aclrtFree's memory does
         * (a kernel still queued on it would fault).
         */
        struct aclrt_allocation gone;
        aclrt_mem_unregister(aclrt_ipc_import_block(seg), seg->data_device != NULL ? ACLRT_MEM_IMPORTED : ACLRT_MEM_MAPPED,
                             &gone);
        aclrt_mem_after_work(NULL, aclrt_ipc_import_end_cb, seg);
        return ACL_SUCCESS;
    }
    aclrt_ipc_seg_close_key(seg); /* later imports find nothing */
    aclrt_ipc_seg_unref(seg);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_IPC_IPC_MEM_H */
