/*
 * backends/cuda/cuda_ipc.h - aclrtMalloc memory shared between processes through CUDA's IPC handles.
 *
 * The keys, allow-lists and their checks are the core's (impl/ipc/ipc_mem.h);
 * what a key names on this backend is a CUipcMemHandle of the cuMemAlloc
 * allocation the range lies in (cuIpcGetMemHandle takes the allocation's
 * base; the key carries the range's offset in it). An import opens the
 * handle in the importing device's primary context (cuIpcOpenMemHandle,
 * CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) after the core checked the key and
 * the allow-list; its close is cuIpcCloseMemHandle. CUDA's own rules hold
 * on top of the core's: a handle does not open in the process that exported
 * it (CUDA_ERROR_INVALID_CONTEXT: ACL_ERROR_RT_FEATURE_NOT_SUPPORT here),
 * and an import is valid only while the exporter keeps the allocation (a
 * cuMemFree before the importers' close is undefined in CUDA). The three
 * entry points are optional: a driver without them exports and imports
 * nothing (ACL_ERROR_RT_FEATURE_NOT_SUPPORT, saying so).
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_IPC_H
#define ACLRT_BACKENDS_CUDA_CUDA_IPC_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"
#include "../../impl/runtime/runtime.h"
#include "../backend.h"
#include "cuda_device.h"
#include "cuda_driver.h"

_Static_assert(sizeof(aclrt_CUipcMemHandle) <= ACLRT_BACKEND_IPC_HANDLE, "a CUDA IPC handle fits the core's");

/* Does the driver share memory between processes? Else the documented refusal. */
static aclError aclrt_cuda_ipc_supported(const char *what)
{
    if (aclrt_cu->cuIpcGetMemHandle != NULL && aclrt_cu->cuIpcOpenMemHandle != NULL &&
        aclrt_cu->cuIpcCloseMemHandle != NULL)
        return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "the CUDA driver has no cuIpcGetMemHandle / cuIpcOpenMemHandle / cuIpcCloseMemHandle: %s device "
                      "memory between processes is not supported with it",
                      what);
}

/* backend.h's ipc_export: the CUipcMemHandle of the allocation at base. */
ACLRT_INTERNAL aclError aclrt_cuda_ipc_export(struct aclrt_device *dev, void *base, uint8_t *handle)
{
    aclError rc = aclrt_cuda_ipc_supported("exporting");
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_CUipcMemHandle h;
    memset(&h, 0, sizeof h);
    aclrt_CUresult r = aclrt_cuda_enter(aclrt_cuda_device_of(dev)->ctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuIpcGetMemHandle(&h, (aclrt_CUdeviceptr)(uintptr_t)base);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_fail(r, "cuIpcGetMemHandle");
    memcpy(handle, &h, sizeof h);
    return ACL_SUCCESS;
}

/* backend.h's ipc_import: open the handle in dev's context; *base is the allocation's address here. */
ACLRT_INTERNAL aclError aclrt_cuda_ipc_import(struct aclrt_device *dev, const uint8_t *handle, void **base)
{
    aclError rc = aclrt_cuda_ipc_supported("importing");
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_CUipcMemHandle h;
    memcpy(&h, handle, sizeof h);
    aclrt_CUdeviceptr p = 0;
    aclrt_CUresult r = aclrt_cuda_enter(aclrt_cuda_device_of(dev)->ctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuIpcOpenMemHandle(&p, h, ACLRT_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (r == ACLRT_CUDA_SUCCESS) {
        *base = (void *)(uintptr_t)p;
        return ACL_SUCCESS;
    }
    char name[96];
    aclrt_cuda_error_name(aclrt_cu, r, name, sizeof name);
    if (r == ACLRT_CUDA_ERROR_INVALID_CONTEXT)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "cuIpcOpenMemHandle failed: %s: CUDA opens an IPC memory handle only in a process other "
                          "than the one that exported it (use the exported address there)",
                          name);
    if (r == ACLRT_CUDA_ERROR_INVALID_VALUE || r == ACLRT_CUDA_ERROR_INVALID_HANDLE || r == 205u /* MAP_FAILED */)
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR,
                          "cuIpcOpenMemHandle failed: %s: the exported allocation is gone (freed, or its process "
                          "ended) or cannot be mapped here",
                          name);
    return aclrt_cuda_fail(r, "cuIpcOpenMemHandle");
}

/* backend.h's ipc_close: the driver's mapping of an import goes (nothing to do where the context is gone). */
ACLRT_INTERNAL void aclrt_cuda_ipc_close(struct aclrt_device *dev, void *base)
{
    if (aclrt_cu->cuIpcCloseMemHandle == NULL || aclrt_runtime_orphaned())
        return;
    if (aclrt_cuda_enter(aclrt_cuda_device_of(dev)->ctx) == ACLRT_CUDA_SUCCESS)
        aclrt_cu->cuIpcCloseMemHandle((aclrt_CUdeviceptr)(uintptr_t)base);
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_IPC_H */
