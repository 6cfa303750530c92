/*
 * impl/kernel/binary_data.h - binary descriptors and a binary's exception
 * callback (aclrtCreateBinary, aclrtDestroyBinary, aclrtBinaryLoad,
 * aclrtBinarySetExceptionCallback).
 *
 * An aclrtBinary describes a binary held in the caller's memory: its
 * address and length, nothing copied. aclrtBinaryLoad loads it as
 * aclrtBinaryLoadFromData does (the caller's bytes must stay until then;
 * the loaded binary needs them no longer). Descriptors are kept in a list,
 * so that a destroyed, foreign or garbage one is an error code, not a
 * read of freed memory; the list is short-lived work for programs that
 * load a few binaries, and not a hot path.
 *
 * aclrtBinarySetExceptionCallback: the last callback set for a binary (NULL
 * clears it) is called with the exception info and its user data when a
 * kernel launched from one of the binary's functions fails, on the thread
 * that reports the failure and before the process-wide exception callbacks
 * (exception.h), while the info is valid.
 */
#ifndef ACLRT_IMPL_KERNEL_BINARY_DATA_H
#define ACLRT_IMPL_KERNEL_BINARY_DATA_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../exec/exception.h"
#include "binary.h"

struct aclrt_binary_desc {
    const void *data;
    size_t length;
    struct aclrt_binary_desc *next;
};

static struct aclrt_binary_desc *aclrt_binary_descs; /* the live descriptors (aclrt_binary_descs_lock) */
static pthread_mutex_t aclrt_binary_descs_lock = PTHREAD_MUTEX_INITIALIZER;

ACLRT_API aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen)
{
    ACLRT_ENTER();
    if (data == NULL || dataLen == 0) {
        aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s", data == NULL ? "data is NULL" : "dataLen is 0");
        return NULL;
    }
    struct aclrt_binary_desc *d = (struct aclrt_binary_desc *)malloc(sizeof *d);
    if (d == NULL) {
        aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for a binary descriptor");
        return NULL;
    }
    d->data = data;
    d->length = dataLen;
    pthread_mutex_lock(&aclrt_binary_descs_lock);
    d->next = aclrt_binary_descs;
    aclrt_binary_descs = d;
    pthread_mutex_unlock(&aclrt_binary_descs_lock);
    return d;
}

/* The link that points to descriptor `binary` (the lock held); NULL if it is not a live one. */
static struct aclrt_binary_desc **aclrt_binary_desc_find(const void *binary)
{
    for (struct aclrt_binary_desc **p = &aclrt_binary_descs; *p != NULL; p = &(*p)->next)
        if (*p == binary)
            return p;
    return NULL;
}

ACLRT_API aclError aclrtDestroyBinary(aclrtBinary binary)
{
    ACLRT_ENTER();
    if (binary == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "binary is NULL");
    pthread_mutex_lock(&aclrt_binary_descs_lock);
    struct aclrt_binary_desc **p = aclrt_binary_desc_find(binary), *d = NULL;
    if (p != NULL) {
        d = *p;
        *p = d->next;
    }
    pthread_mutex_unlock(&aclrt_binary_descs_lock);
    if (d == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "binary %p is not from aclrtCreateBinary, or was destroyed",
                          binary);
    free(d);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
    ACLRT_ENTER();
    if (binary == NULL || binHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", binary == NULL ? "binary" : "binHandle (output)");
    pthread_mutex_lock(&aclrt_binary_descs_lock);
    struct aclrt_binary_desc **p = aclrt_binary_desc_find(binary);
    const void *data = p != NULL ? (*p)->data : NULL;
    size_t length = p != NULL ? (*p)->length : 0;
    pthread_mutex_unlock(&aclrt_binary_descs_lock);
    if (p == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "binary %p is not from aclrtCreateBinary, or was destroyed",
                          binary);
    return aclrt_binary_load_data(data, length, NULL, binHandle);
}

/* exception.h's hook: the failing kernel's binary's callback, if it has one. */
static void aclrt_binary_exception(aclrtExceptionInfo *info)
{
    struct aclrt_function *f = aclrt_function_lookup(info->kernel_handle);
    if (f == NULL)
        return; /* unloaded meanwhile: its callback went with it */
    pthread_mutex_lock(&aclrt_kernels_lock);
    aclrtOpExceptionCallback cb = NULL;
    void *data = NULL;
    if (aclrt_function_lookup(info->kernel_handle) == f) {
        struct aclrt_binary *b = atomic_load_explicit(&f->binary, memory_order_relaxed);
        cb = b->on_exception;
        data = b->on_exception_data;
    }
    pthread_mutex_unlock(&aclrt_kernels_lock);
    if (cb != NULL)
        cb(info, data);
}

ACLRT_API aclError aclrtBinarySetExceptionCallback(aclrtBinHandle binHandle, aclrtOpExceptionCallback callback,
                                                   void *userData)
{
    ACLRT_ENTER();
    struct aclrt_binary *b;
    aclError rc = aclrt_binary_lock_live(binHandle, "", &b);
    if (rc != ACL_SUCCESS)
        return rc;
    b->on_exception = callback;
    b->on_exception_data = userData;
    pthread_mutex_unlock(&aclrt_kernels_lock);
    /* Release: pairs with the acquire in aclrt_exception_report. */
    atomic_store_explicit(&aclrt_exception_binary_hook, aclrt_binary_exception, memory_order_release);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_KERNEL_BINARY_DATA_H */
