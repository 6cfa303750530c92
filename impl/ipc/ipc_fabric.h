/*
 * impl/ipc/ipc_fabric.h - shareable handles V2 and fabric handles:
 * aclrtMemExportToShareableHandleV2, aclrtMemSetPidToShareableHandleV2,
 * aclrtMemImportFromShareableHandleV2.
 *
 * Both kinds of V2 handle name the export of ipc_physmem.h (one per block).
 * ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT is its uint64_t. A fabric handle
 * (ACL_MEM_SHARE_HANDLE_TYPE_FABRIC) is 128 bytes that stand alone, so that
 * any channel can carry them (a datagram, a file, MPI):
 *   bytes  0..7    "ACLRTFAB", the format
 *   bytes  8..11   the format's version (1), little-endian as all numbers here
 *   bytes 12..15   the exporter's user id
 *   bytes 16..31   the boot id of the exporter's machine (/proc's random/boot_id)
 *   bytes 32..39   the export's uint64_t shareable handle
 *   bytes 40..127  zero
 * A "server" of aclrt is a process: an importer must run on the same boot
 * of the same machine as the exporter (another boot id is refused with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT: memory does not cross a network), and
 * then imports as the V1 call does, on its current device. The user id
 * only lets the refusal of another user's handle say why.
 */
#ifndef ACLRT_IMPL_IPC_IPC_FABRIC_H
#define ACLRT_IMPL_IPC_IPC_FABRIC_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../context/context.h"
#include "ipc_physmem.h"

#include <fcntl.h>

#define ACLRT_FABRIC_MAGIC "ACLRTFAB"
#define ACLRT_FABRIC_VERSION 1u

_Static_assert(sizeof(aclrtMemFabricHandle) == 128, "CANN's fabric handle is 128 bytes");

static void aclrt_fabric_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t aclrt_fabric_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void aclrt_fabric_put64(uint8_t *p, uint64_t v)
{
    aclrt_fabric_put32(p, (uint32_t)v);
    aclrt_fabric_put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t aclrt_fabric_get64(const uint8_t *p)
{
    return (uint64_t)aclrt_fabric_get32(p) | (uint64_t)aclrt_fabric_get32(p + 4) << 32;
}

/* This boot's id (16 bytes from its 36-character text); false: none readable. */
static bool aclrt_fabric_boot_id(uint8_t id[16])
{
    char text[64] = {0};
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    size_t got = 0;
    for (ssize_t i = 0; i < n && got < 32; i++) {
        char c = text[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            continue; /* the dashes */
        if (got % 2 == 0)
            id[got / 2] = (uint8_t)(v << 4);
        else
            id[got / 2] |= (uint8_t)v;
        got++;
    }
    return got == 32;
}

static aclError aclrt_share_type_check(aclrtMemSharedHandleType shareType)
{
    if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && shareType != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "shareType %d is not ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT or ACL_MEM_SHARE_HANDLE_TYPE_FABRIC",
                          (int)shareType);
    return ACL_SUCCESS;
}

/* The uint64_t shareable handle a V2 handle names: its own, or the one in a fabric handle (checked). */
static aclError aclrt_share_v2_value(const void *shareableHandle, aclrtMemSharedHandleType shareType, uint64_t *out)
{
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
        memcpy(out, shareableHandle, sizeof *out);
        return ACL_SUCCESS;
    }
    const uint8_t *b = ((const aclrtMemFabricHandle *)shareableHandle)->data;
    if (memcmp(b, ACLRT_FABRIC_MAGIC, 8) != 0 || aclrt_fabric_get32(b + 8) != ACLRT_FABRIC_VERSION)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the fabric handle is not one aclrtMemExportToShareableHandleV2 made (format or version)");
    uint8_t boot[16];
    if (!aclrt_fabric_boot_id(boot))
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot read this machine's boot id (/proc/sys/kernel/random/boot_id)");
    if (memcmp(boot, b + 16, sizeof boot) != 0)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "the fabric handle was exported on another machine (or before this one restarted): aclrt "
                          "shares memory between processes of one machine only");
    uint32_t uid = aclrt_fabric_get32(b + 12);
    if (uid != (uint32_t)getuid())
        return aclrt_fail(ACL_ERROR_RT_NO_PERMISSION,
                          "the fabric handle was exported by user %u: only processes of the same user can import it", uid);
    *out = aclrt_fabric_get64(b + 32);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                     aclrtMemSharedHandleType shareType, void *shareableHandle)
{
    ACLRT_ENTER();
    if (handle == NULL || shareableHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "shareableHandle (output)");
    aclError rc = aclrt_share_type_check(shareType);
    if (rc != ACL_SUCCESS)
        return rc;
    uint8_t boot[16];
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC && !aclrt_fabric_boot_id(boot))
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot read this machine's boot id (/proc/sys/kernel/random/boot_id)");
    uint64_t value;
    if ((rc = aclrt_pmem_export(handle, flags, &value)) != ACL_SUCCESS)
        return rc;
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
        memcpy(shareableHandle, &value, sizeof value);
        return ACL_SUCCESS;
    }
    aclrtMemFabricHandle fabric;
    memset(&fabric, 0, sizeof fabric);
    memcpy(fabric.data, ACLRT_FABRIC_MAGIC, 8);
    aclrt_fabric_put32(fabric.data + 8, ACLRT_FABRIC_VERSION);
    aclrt_fabric_put32(fabric.data + 12, (uint32_t)getuid());
    memcpy(fabric.data + 16, boot, sizeof boot);
    aclrt_fabric_put64(fabric.data + 32, value);
    memcpy(shareableHandle, &fabric, sizeof fabric);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                     int32_t *pid, size_t pidNum)
{
    ACLRT_ENTER();
    if (shareableHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "shareableHandle is NULL");
    aclError rc = aclrt_share_type_check(shareType);
    if (rc != ACL_SUCCESS)
        return rc;
    uint64_t value;
    if ((rc = aclrt_share_v2_value(shareableHandle, shareType, &value)) != ACL_SUCCESS)
        return rc;
    return aclrt_pmem_set_pids(value, pid, pidNum);
}

ACLRT_API aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                       uint64_t flags, aclrtDrvMemHandle *handle)
{
    ACLRT_ENTER();
    if (shareableHandle == NULL || handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle (output)" : "shareableHandle");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags 0x%llx is reserved and must be 0", (unsigned long long)flags);
    aclError rc = aclrt_share_type_check(shareType);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx; /* the memory becomes the current device's, as the runtime does */
    if ((rc = aclrt_current_context(&ctx)) != ACL_SUCCESS)
        return rc;
    uint64_t value;
    if ((rc = aclrt_share_v2_value(shareableHandle, shareType, &value)) != ACL_SUCCESS)
        return rc;
    return aclrt_pmem_import(value, ctx->device, handle);
}

#endif /* ACLRT_IMPL_IPC_IPC_FABRIC_H */
