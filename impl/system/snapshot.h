/*
 * impl/system/snapshot.h - snapshots of the process (aclrtSnapShot*): the
 * state machine RUNNING -> LOCKED -> BACKED_UP -> LOCKED -> RUNNING, the
 * host copy of the device memory a backup takes and a restore writes back,
 * and the callbacks of each stage.
 *
 * The state word and the gate that holds user threads while the process is
 * not RUNNING are in stream/snapshot_gate.h. The snapshot calls are
 * serialized by one mutex; the callback lists have their own, released
 * while callbacks run (a callback may register or unregister).
 */
#ifndef ACLRT_IMPL_SYSTEM_SNAPSHOT_H
#define ACLRT_IMPL_SYSTEM_SNAPSHOT_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/futex.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/snapshot_gate.h"
#include "../context/device.h"
#include "../memory/memory.h"

#include <unistd.h>

/* How long Lock waits for the work of the set devices before it gives up (CANN's bound for its threads). */
#define ACLRT_SNAP_DRAIN_MS 60000

struct aclrt_snap_callback {
    aclrtSnapShotCallBack fn;
    void *args;
};

/* A backed-up allocation: where it was, on which device, and its bytes. */
struct aclrt_snap_block {
    uintptr_t base;
    size_t size;
    struct aclrt_device *device;
    void *copy;
};

static struct {
    pthread_mutex_t lock; /* serializes the snapshot calls; guards the backup */
    struct aclrt_snap_block *blocks;
    size_t count;
    pthread_mutex_t cb_lock; /* guards the callback lists */
    struct aclrt_snap_callback *cbs[ACL_RT_SNAPSHOT_UNLOCK_POST + 1];
    size_t cb_count[ACL_RT_SNAPSHOT_UNLOCK_POST + 1];
} aclrt_snap = {.lock = PTHREAD_MUTEX_INITIALIZER, .cb_lock = PTHREAD_MUTEX_INITIALIZER};

static const char *const aclrt_snap_stage_names[] = {
    "ACL_RT_SNAPSHOT_LOCK_PRE",     "ACL_RT_SNAPSHOT_BACKUP_PRE",   "ACL_RT_SNAPSHOT_BACKUP_POST",
    "ACL_RT_SNAPSHOT_RESTORE_PRE", "ACL_RT_SNAPSHOT_RESTORE_POST", "ACL_RT_SNAPSHOT_UNLOCK_POST",
};

static const char *aclrt_snap_state_name(uint32_t st)
{
    return st == ACLRT_SNAP_RUNNING ? "RUNNING" : st == ACLRT_SNAP_LOCKED ? "LOCKED" : "BACKED_UP";
}

static bool aclrt_snap_stage_valid(aclrtSnapShotStage stage)
{
    return (int)stage >= (int)ACL_RT_SNAPSHOT_LOCK_PRE && (int)stage <= (int)ACL_RT_SNAPSHOT_UNLOCK_POST;
}

/* The devices set now (started), in id order; returns how many (at most ACLRT_MAX_DEVICES). */
static size_t aclrt_snap_devices(struct aclrt_device **out)
{
    size_t n = 0;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    for (uint32_t i = 0; i < aclrt_rt.device_count && i < ACLRT_MAX_DEVICES; i++)
        if (aclrt_rt.devices[i].started)
            out[n++] = &aclrt_rt.devices[i];
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return n;
}

/*
 * Call the callbacks of `stage`, in registration order, once per set device
 * each (as the runtime does); the first nonzero result stops the stage. The
 * list is copied so that the callbacks run without the list's lock.
 */
static aclError aclrt_snap_invoke(aclrtSnapShotStage stage)
{
    pthread_mutex_lock(&aclrt_snap.cb_lock);
    size_t n = aclrt_snap.cb_count[stage];
    struct aclrt_snap_callback *list = NULL;
    if (n != 0 && (list = (struct aclrt_snap_callback *)malloc(n * sizeof *list)) != NULL)
        memcpy(list, aclrt_snap.cbs[stage], n * sizeof *list);
    pthread_mutex_unlock(&aclrt_snap.cb_lock);
    if (n != 0 && list == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory calling the snapshot callbacks");
    struct aclrt_device *devs[ACLRT_MAX_DEVICES];
    size_t nd = n != 0 ? aclrt_snap_devices(devs) : 0;
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++)
        for (size_t d = 0; d < nd && rc == ACL_SUCCESS; d++) {
            uint32_t r = list[i].fn((int32_t)devs[d]->id, list[i].args);
            if (r != 0)
                rc = aclrt_fail(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED,
                                "a %s callback returned %u for device %u", aclrt_snap_stage_names[stage], r,
                                devs[d]->id);
        }
    free(list);
    return rc;
}

/* Wait for the work launched on every set device, without taking its task failures (the program's). */
static aclError aclrt_snap_drain(void)
{
    struct aclrt_device *devs[ACLRT_MAX_DEVICES];
    size_t nd = aclrt_snap_devices(devs);
    for (size_t d = 0; d < nd; d++) {
        aclError rc = aclrt_device_synchronize_on(devs[d], ACLRT_SNAP_DRAIN_MS, false);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

/* The checks every snapshot call makes: this process's pid, and the reserved argument. */
static aclError aclrt_snap_check(int pid, bool reserved_ok, const char *reserved_name)
{
    if (pid != (int)getpid())
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "pid %d is not this process's (%d): only the calling process can be snapshot", pid,
                          (int)getpid());
    if (!reserved_ok)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is reserved: pass NULL (or flags 0 and a zeroed reserve)",
                          reserved_name);
    return ACL_SUCCESS;
}

/* A reserved argument struct: NULL, or flags 0 and a zeroed reserve. */
static bool aclrt_snap_args_zero(uint32_t flags, const char *reserved, size_t size)
{
    if (flags != 0)
        return false;
    for (size_t i = 0; i < size; i++)
        if (reserved[i] != 0)
            return false;
    return true;
}

/* A synchronous copy through the backend (NULL mem_copy: device memory is the host's). */
static aclError aclrt_snap_copy(void *dst, const void *src, size_t count, aclrtMemcpyKind kind)
{
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b != NULL && b->mem_copy != NULL)
        return b->mem_copy(dst, src, count, kind);
    memcpy(dst, src, count);
    return ACL_SUCCESS;
}

/* Drop the backup (under aclrt_snap.lock). */
static void aclrt_snap_drop_backup(void)
{
    for (size_t i = 0; i < aclrt_snap.count; i++)
        free(aclrt_snap.blocks[i].copy);
    free(aclrt_snap.blocks);
    aclrt_snap.blocks = NULL;
    aclrt_snap.count = 0;
}

/* Copy every device allocation to the host (under aclrt_snap.lock); the backup replaces the last one. */
static aclError aclrt_snap_take_backup(void)
{
    aclError rc = ACL_SUCCESS;
    pthread_rwlock_rdlock(&aclrt_mem.lock);
    size_t n = 0, count;
    const struct aclrt_mem_table *t = aclrt_mem_table_locked(&count);
    for (size_t i = 0; i < count; i++)
        n += t->items[i].kind == ACLRT_MEM_DEVICE;
    struct aclrt_snap_block *blocks = n != 0 ? (struct aclrt_snap_block *)calloc(n, sizeof *blocks) : NULL;
    size_t k = 0;
    if (n != 0 && blocks == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for the list of a backup");
    for (size_t i = 0; i < count && rc == ACL_SUCCESS; i++) {
        const struct aclrt_allocation *a = &t->items[i];
        if (a->kind != ACLRT_MEM_DEVICE)
            continue;
        struct aclrt_snap_block *b = &blocks[k++];
        *b = (struct aclrt_snap_block){a->base, a->size, a->device, malloc(a->size)};
        if (b->copy == NULL)
            rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory backing up %zu bytes at %p",
                            a->size, (void *)a->base);
        else if (aclrt_snap_copy(b->copy, (const void *)a->base, a->size, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
            rc = aclrt_fail(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, "cannot read the %zu bytes of device memory at %p",
                            a->size, (void *)a->base);
    }
    pthread_rwlock_unlock(&aclrt_mem.lock);
    if (rc != ACL_SUCCESS) {
        for (size_t i = 0; i < k; i++)
            free(blocks[i].copy);
        free(blocks);
        return rc;
    }
    aclrt_snap_drop_backup();
    aclrt_snap.blocks = blocks;
    aclrt_snap.count = n;
    return ACL_SUCCESS;
}

/*
 * Write the backup back (under aclrt_snap.lock): into each allocation that
 * is still alive at the same address, with the same size and device (one
 * freed since is skipped: its memory is no longer the program's).
 */
static aclError aclrt_snap_write_backup(void)
{
    aclError rc = ACL_SUCCESS;
    pthread_rwlock_rdlock(&aclrt_mem.lock);
    size_t count;
    const struct aclrt_mem_table *t = aclrt_mem_table_locked(&count);
    for (size_t i = 0; i < aclrt_snap.count && rc == ACL_SUCCESS; i++) {
        const struct aclrt_snap_block *b = &aclrt_snap.blocks[i];
        size_t at = t != NULL ? aclrt_mem_upper(t, count, b->base) : 0;
        const struct aclrt_allocation *a = at > 0 ? &t->items[at - 1] : NULL;
        if (a == NULL || a->base != b->base || a->size != b->size || a->kind != ACLRT_MEM_DEVICE ||
            a->device != b->device)
            continue;
        if (aclrt_snap_copy((void *)b->base, b->copy, b->size, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
            rc = aclrt_fail(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, "cannot write the %zu bytes of device memory at %p",
                            b->size, (void *)b->base);
    }
    pthread_rwlock_unlock(&aclrt_mem.lock);
    return rc;
}

/* Move the state word; RUNNING wakes the threads the gate holds. Under aclrt_snap.lock. */
static void aclrt_snap_set_state(uint32_t st)
{
    /* Seq_cst: LOCKED is stored before the drain that follows reads the streams (snapshot_gate.h). */
    atomic_store_explicit(&aclrt_snap_state, st, memory_order_seq_cst);
    if (st == ACLRT_SNAP_RUNNING)
        aclrt_futex_wake(&aclrt_snap_state, INT32_MAX);
}

ACLRT_API aclError aclrtSnapShotProcessLock(int pid, void *reserve)
{
    ACLRT_ENTER();
    aclError rc = aclrt_snap_check(pid, reserve == NULL, "reserve");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_snap.lock);
    uint32_t st = atomic_load_explicit(&aclrt_snap_state, memory_order_relaxed);
    if (st != ACLRT_SNAP_RUNNING) {
        rc = aclrt_fail(ACL_ERROR_SNAPSHOT_LOCK_FAILED, "the process is %s, not RUNNING: it is locked already",
                        aclrt_snap_state_name(st));
        goto out;
    }
    if ((rc = aclrt_snap_invoke(ACL_RT_SNAPSHOT_LOCK_PRE)) != ACL_SUCCESS)
        goto out;
    aclrt_snap_set_state(ACLRT_SNAP_LOCKED);
    if ((rc = aclrt_snap_drain()) != ACL_SUCCESS) {
        /* The work did not drain: the process runs on, the held threads go. */
        aclrt_snap_set_state(ACLRT_SNAP_RUNNING);
        rc = aclrt_fail(rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT ? ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT
                                                                : ACL_ERROR_SNAPSHOT_LOCK_FAILED,
                        "the work launched on the devices did not drain (within %d ms); the process runs on",
                        ACLRT_SNAP_DRAIN_MS);
    }
out:
    pthread_mutex_unlock(&aclrt_snap.lock);
    return rc;
}

ACLRT_API aclError aclrtSnapShotProcessUnlock(int pid, void *reserve)
{
    ACLRT_ENTER();
    aclError rc = aclrt_snap_check(pid, reserve == NULL, "reserve");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_snap.lock);
    uint32_t st = atomic_load_explicit(&aclrt_snap_state, memory_order_relaxed);
    if (st == ACLRT_SNAP_RUNNING) {
        rc = aclrt_fail(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, "the process is RUNNING: it is not locked");
    } else {
        aclrt_snap_set_state(ACLRT_SNAP_RUNNING);
        rc = aclrt_snap_invoke(ACL_RT_SNAPSHOT_UNLOCK_POST);
    }
    pthread_mutex_unlock(&aclrt_snap.lock);
    return rc;
}

ACLRT_API aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args)
{
    ACLRT_ENTER();
    aclError rc = aclrt_snap_check(
        pid, args == NULL || aclrt_snap_args_zero(args->backupFlags, args->reserved, sizeof args->reserved), "args");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_snap.lock);
    uint32_t st = atomic_load_explicit(&aclrt_snap_state, memory_order_relaxed);
    if (st != ACLRT_SNAP_LOCKED) {
        rc = aclrt_fail(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, "the process is %s: a backup needs it LOCKED",
                        aclrt_snap_state_name(st));
        goto out;
    }
    if ((rc = aclrt_snap_invoke(ACL_RT_SNAPSHOT_BACKUP_PRE)) != ACL_SUCCESS)
        goto out;
    /* Again: work a runtime thread launched since the lock (snapshot_gate.h) has run before memory is read. */
    if ((rc = aclrt_snap_drain()) != ACL_SUCCESS) {
        rc = aclrt_fail(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, "the devices' work did not drain before the backup");
        goto out;
    }
    if ((rc = aclrt_snap_take_backup()) != ACL_SUCCESS)
        goto out;
    if ((rc = aclrt_snap_invoke(ACL_RT_SNAPSHOT_BACKUP_POST)) != ACL_SUCCESS)
        goto out;
    aclrt_snap_set_state(ACLRT_SNAP_BACKED_UP);
out:
    pthread_mutex_unlock(&aclrt_snap.lock);
    return rc;
}

ACLRT_API aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args)
{
    ACLRT_ENTER();
    aclError rc = aclrt_snap_check(
        pid, args == NULL || aclrt_snap_args_zero(args->restoreFlags, args->reserved, sizeof args->reserved), "args");
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_snap.lock);
    uint32_t st = atomic_load_explicit(&aclrt_snap_state, memory_order_relaxed);
    if (st != ACLRT_SNAP_BACKED_UP) {
        rc = aclrt_fail(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, "the process is %s: a restore needs it BACKED_UP",
                        aclrt_snap_state_name(st));
        goto out;
    }
    if ((rc = aclrt_snap_invoke(ACL_RT_SNAPSHOT_RESTORE_PRE)) != ACL_SUCCESS)
        goto out;
    if ((rc = aclrt_snap_write_backup()) != ACL_SUCCESS)
        goto out;
    if ((rc = aclrt_snap_invoke(ACL_RT_SNAPSHOT_RESTORE_POST)) != ACL_SUCCESS)
        goto out;
    aclrt_snap_set_state(ACLRT_SNAP_LOCKED);
out:
    pthread_mutex_unlock(&aclrt_snap.lock);
    return rc;
}

ACLRT_API aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback, void *args)
{
    ACLRT_ENTER();
    if (!aclrt_snap_stage_valid(stage))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "stage %d is not an aclrtSnapShotStage (0 to %d)", (int)stage,
                          (int)ACL_RT_SNAPSHOT_UNLOCK_POST);
    if (callback == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "callback is NULL");
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_snap.cb_lock);
    size_t n = aclrt_snap.cb_count[stage];
    for (size_t i = 0; i < n; i++)
        if (aclrt_snap.cbs[stage][i].fn == callback) {
            rc = aclrt_fail(ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED,
                            "this callback is registered for %s already", aclrt_snap_stage_names[stage]);
            goto out;
        }
    struct aclrt_snap_callback *list =
        (struct aclrt_snap_callback *)realloc(aclrt_snap.cbs[stage], (n + 1) * sizeof *list);
    if (list == NULL) {
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory registering a snapshot callback");
        goto out;
    }
    list[n] = (struct aclrt_snap_callback){callback, args};
    aclrt_snap.cbs[stage] = list;
    aclrt_snap.cb_count[stage] = n + 1;
out:
    pthread_mutex_unlock(&aclrt_snap.cb_lock);
    return rc;
}

ACLRT_API aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback)
{
    ACLRT_ENTER();
    if (!aclrt_snap_stage_valid(stage))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "stage %d is not an aclrtSnapShotStage (0 to %d)", (int)stage,
                          (int)ACL_RT_SNAPSHOT_UNLOCK_POST);
    if (callback == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "callback is NULL");
    bool found = false;
    pthread_mutex_lock(&aclrt_snap.cb_lock);
    size_t n = aclrt_snap.cb_count[stage];
    for (size_t i = 0; i < n; i++)
        if (aclrt_snap.cbs[stage][i].fn == callback) {
            memmove(&aclrt_snap.cbs[stage][i], &aclrt_snap.cbs[stage][i + 1],
                    (n - i - 1) * sizeof aclrt_snap.cbs[stage][0]);
            aclrt_snap.cb_count[stage] = n - 1;
            found = true;
            break;
        }
    pthread_mutex_unlock(&aclrt_snap.cb_lock);
    if (!found)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "this callback is not registered for %s",
                          aclrt_snap_stage_names[stage]);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYSTEM_SNAPSHOT_H */
