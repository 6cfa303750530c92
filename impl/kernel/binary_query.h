/*
 * impl/kernel/binary_query.h - the queries of binaries and functions: a
 * binary's address and size and its globals (which the backend's module
 * hooks answer, backends/backend.h), a function's name, entry point, code
 * size and binary.
 *
 * Each query resolves its handle and reads under aclrt_kernels_lock what
 * an unload changes (aclrt_binary_lock_live, aclrt_function_lock_live);
 * a function's entry point is read without it, as a launch reads it.
 */
#ifndef ACLRT_IMPL_KERNEL_BINARY_QUERY_H
#define ACLRT_IMPL_KERNEL_BINARY_QUERY_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "binary.h"

ACLRT_API aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle, void **binAddr, size_t *binSize)
{
    ACLRT_ENTER();
    if (binAddr == NULL || binSize == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", binAddr == NULL ? "binAddr" : "binSize");
    struct aclrt_binary *b;
    aclError rc = aclrt_binary_lock_live(binHandle, "", &b);
    if (rc != ACL_SUCCESS)
        return rc;
    void *addr = atomic_load_explicit(&b->module, memory_order_relaxed); /* without a hook, its handle stands for it */
    if (b->backend->module_address != NULL)
        rc = b->backend->module_address(addr, &addr);
    size_t bytes = (size_t)b->size;
    pthread_mutex_unlock(&aclrt_kernels_lock);
    if (rc != ACL_SUCCESS)
        return rc;
    *binAddr = addr;
    *binSize = bytes;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name, void **dptr, size_t *size)
{
    ACLRT_ENTER();
    if (name == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name is NULL");
    if (dptr == NULL && size == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dptr and size (outputs) are both NULL");
    struct aclrt_binary *b;
    aclError rc = aclrt_binary_lock_live(binHandle, "", &b);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t bytes = 0;
    void *addr = NULL;
    rc = b->backend->module_global(atomic_load_explicit(&b->module, memory_order_relaxed), name, &addr, &bytes);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    if (rc != ACL_SUCCESS)
        return rc;
    if (dptr != NULL)
        *dptr = addr;
    if (size != NULL)
        *size = bytes;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
{
    ACLRT_ENTER();
    if (name == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "name (output) is NULL");
    struct aclrt_function *f;
    aclError rc = aclrt_function_lock_live(funcHandle, ACL_ERROR_RT_PARAM_INVALID, &f);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t len = strlen(f->name);
    bool fits = (size_t)maxLen >= len + 1;
    if (fits)
        memcpy(name, f->name, len + 1);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    if (!fits)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "maxLen %u is less than the name's %zu bytes and its NUL",
                          maxLen, len);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
    ACLRT_ENTER();
    if (aicAddr == NULL || aivAddr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", aicAddr == NULL ? "aicAddr" : "aivAddr");
    struct aclrt_function *f;
    aclError rc = aclrt_function_resolve(funcHandle, ACL_ERROR_INVALID_PARAM, &f);
    if (rc != ACL_SUCCESS)
        return rc;
    *aicAddr = aclrt_function_entry(f); /* the kernel's entry point; one kind of core runs it */
    *aivAddr = NULL;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize)
{
    ACLRT_ENTER();
    if (aicSize == NULL || aivSize == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s (output) is NULL", aicSize == NULL ? "aicSize" : "aivSize");
    struct aclrt_function *f;
    aclError rc = aclrt_function_lock_live(funcHandle, ACL_ERROR_RT_PARAM_INVALID, &f);
    if (rc != ACL_SUCCESS)
        return rc;
    *aicSize = f->code_size; /* the kernel's code size: one kind of core runs it */
    pthread_mutex_unlock(&aclrt_kernels_lock);
    *aivSize = 0;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle)
{
    ACLRT_ENTER();
    if (binHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "binHandle (output) is NULL");
    struct aclrt_function *f;
    aclError rc = aclrt_function_lock_live(funcHandle, ACL_ERROR_INVALID_PARAM, &f);
    if (rc != ACL_SUCCESS)
        return rc;
    *binHandle = aclrt_slot_handle(&aclrt_binaries, &atomic_load_explicit(&f->binary, memory_order_relaxed)->hdr);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_KERNEL_BINARY_QUERY_H */
