/*
 * impl/system/data_buffer.h - data buffers (aclCreateDataBuffer ...): an
 * address and a size that other calls take as a description of memory.
 *
 *   A buffer only describes: it never allocates or frees the memory it
 *   names, and the memory may be NULL with size 0 (an empty output). It
 *   needs no aclInit and touches no runtime state, so any thread may use
 *   it at any time; one buffer is the caller's to share (no lock: as in the
 *   runtime, updating a buffer while another thread reads it is a race of
 *   the program's).
 *   A NULL buffer is ACL_ERROR_INVALID_PARAM where the call returns a code,
 *   NULL or 0 where it returns the address or the size (with the message in
 *   aclGetRecentErrMsg either way). aclGetDataBufferSize, deprecated, gives
 *   the size cut to 32 bits, as the runtime does.
 */
#ifndef ACLRT_IMPL_SYSTEM_DATA_BUFFER_H
#define ACLRT_IMPL_SYSTEM_DATA_BUFFER_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"

struct aclDataBuffer {
    void *data;
    size_t size;
};

ACLRT_API aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    ACLRT_ENTER();
    aclDataBuffer *b = malloc(sizeof *b);
    if (b == NULL) {
        (void)aclrt_fail(ACL_ERROR_BAD_ALLOC, "no host memory for a data buffer");
        return NULL;
    }
    b->data = data;
    b->size = size;
    return b;
}

ACLRT_API aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    ACLRT_ENTER();
    if (dataBuffer == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL");
    free((void *)(uintptr_t)dataBuffer);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    ACLRT_ENTER();
    if (dataBuffer == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL");
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

ACLRT_API void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    ACLRT_ENTER();
    if (dataBuffer == NULL) {
        (void)aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL");
        return NULL;
    }
    return dataBuffer->data;
}

ACLRT_API size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    ACLRT_ENTER();
    if (dataBuffer == NULL) {
        (void)aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL");
        return 0;
    }
    return dataBuffer->size;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
ACLRT_API uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    ACLRT_ENTER();
    if (dataBuffer == NULL) {
        (void)aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataBuffer is NULL");
        return 0;
    }
    return (uint32_t)dataBuffer->size;
}
#pragma GCC diagnostic pop

#endif /* ACLRT_IMPL_SYSTEM_DATA_BUFFER_H */
