/*
 * impl/kernel/kernel_args.h - the argument builder of a function (aclrtKernelArgs*):
 * parameters appended in order, placeholders, updates, finalize, and the
 * copy a launch takes of it (kernel_launch.h).
 *
 * The layout, which a host kernel reads as a C struct of its parameters in
 * order: each parameter of n bytes starts at the next multiple of its
 * natural alignment, the largest power of two that divides n, at most 8
 * (a placeholder is a pointer: 8 bytes at 8). Where the backend knows the
 * kernel's own layout (the cuda backend, binary.h's function_layout), each
 * parameter goes at the kernel's offset instead, and must have its size. Placeholder data comes after
 * the last parameter, each buffer at a multiple of 8. At a launch the
 * buffer is copied, and each placeholder's pointer in the copy is set to
 * its data in the copy (NULL for a placeholder without a buffer).
 *
 * An args handle is the calling thread's for its function, as in the
 * runtime, where aclrtKernelArgsInit hands each thread one handle that the
 * next initialisation reuses [src]: a thread's aclrtKernelArgsInit for a
 * function ends the handle the same thread made for that function before
 * (ACL_ERROR_RT_INVALID_HANDLE from then on) and reuses its memory, so a
 * program that initialises before every launch uses no more memory than one
 * that initialises once. Handles for different functions, or made by
 * different threads, are independent. A handle ends with its function's
 * binary (aclrtBinaryUnLoad, aclFinalize). Any thread may use any live
 * handle; using one while another thread changes it is a data race of the
 * program, as with any object.
 *
 * A handle's buffer (ACLRT_ARGS_BYTES, the runtime's size [src]) belongs to
 * its slot and is kept from one life of the slot to the next.
 */
#ifndef ACLRT_IMPL_KERNEL_KERNEL_ARGS_H
#define ACLRT_IMPL_KERNEL_KERNEL_ARGS_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "binary.h"

#define ACLRT_ARGS_MAX_PARAMS 128 /* as in the runtime [src] */
#define ACLRT_ARGS_BYTES 65536    /* parameters and placeholder data, as in the runtime [src] */
#define ACLRT_PARAM_INDEX_BITS 7  /* a parameter handle: (args slot << 7) | parameter */

struct aclrt_args_param {
    uint32_t offset;      /* in the buffer */
    uint32_t size;        /* bytes (8 for a placeholder: its pointer) */
    uint32_t data_offset; /* a placeholder's data in the buffer; 0: no buffer taken */
    uint32_t placeholder; /* 1: a placeholder, 0: a value */
};

/*
 * An args handle. Invariants: parameters lie in [0, params_end), placeholder
 * data in [params_end, size); size <= ACLRT_ARGS_BYTES; once data_started, no
 * parameter is appended; a launch takes it only finalized and not updated since.
 */
struct aclrt_args {
    struct aclrt_slot hdr;
    struct aclrt_function *function; /* the function it was made for */
    uint32_t function_life;          /* that function's generation */
    uint32_t count;                  /* parameters appended */
    uint64_t owner;                  /* the serial of the thread that made it */
    struct aclrt_args *next;         /* in its function's list (aclrt_kernels_lock) */
    unsigned char *buffer;           /* ACLRT_ARGS_BYTES, kept across the slot's lives */
    uint32_t size;                   /* bytes in use */
    uint32_t placeholders;
    uint8_t finalized;               /* aclrtKernelArgsFinalize since the last change of layout */
    uint8_t updating;                /* a value changed since the last finalize */
    uint8_t data_started;            /* a placeholder's buffer was taken: no more parameters */
    struct aclrt_args_param params[ACLRT_ARGS_MAX_PARAMS];
};

static struct aclrt_table aclrt_args_table = ACLRT_TABLE_INIT(ACLRT_KIND_ARGS, struct aclrt_args, "args");

/* Threads get a serial on their first aclrtKernelArgsInit: what "the thread's handle" is keyed by. */
static _Atomic uint64_t aclrt_args_threads;
static _Thread_local uint64_t aclrt_args_thread ACLRT_TLS_MODEL;

/* binary.h's hook: end every args handle made for f (the lock held; f is being unloaded). */
static void aclrt_args_release_of(struct aclrt_function *f)
{
    for (struct aclrt_args *a = f->args, *next; a != NULL; a = next) {
        next = a->next;
        a->next = NULL;
        aclrt_table_retire(&a->hdr);
        aclrt_table_free(&aclrt_args_table, &a->hdr);
    }
    f->args = NULL;
}

ACLRT_INTERNAL aclError aclrt_args_resolve(aclrtArgsHandle h, struct aclrt_args **out)
{
    if (h == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "argsHandle is NULL");
    *out = (struct aclrt_args *)aclrt_table_lookup(&aclrt_args_table, h);
    if (*out == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                          "argsHandle %p is not a live args handle (its binary was unloaded, the thread initialised a "
                          "new one for the same function, or it is stale or garbage)",
                          h);
    return ACL_SUCCESS;
}

static void *aclrt_param_handle(const struct aclrt_args *a, aclrtArgsHandle args_handle, uint32_t i)
{
    uint64_t h = (uint64_t)(uintptr_t)args_handle;
    uint32_t life = (uint32_t)((h >> ACLRT_HANDLE_INDEX_BITS) & ACLRT_HANDLE_GEN_MASK);
    return aclrt_handle_encode(ACLRT_KIND_PARAM, (aclrt_slot_index(&a->hdr) << ACLRT_PARAM_INDEX_BITS) | i, life);
}

/* The live args handle, and the parameter a handle names if it is one of its own (same slot, same life, appended). */
static aclError aclrt_param_resolve(aclrtArgsHandle args_handle, aclrtParamHandle p, struct aclrt_args **args,
                                    struct aclrt_args_param **out)
{
    aclError rc = aclrt_args_resolve(args_handle, args);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_args *a = *args;
    uint64_t h = (uint64_t)(uintptr_t)p;
    uint32_t index = (uint32_t)(h & ACLRT_HANDLE_INDEX_MASK);
    uint32_t i = index & ((1u << ACLRT_PARAM_INDEX_BITS) - 1);
    if ((h >> 56) != ACLRT_HANDLE_MAGIC || ((h >> 52) & 0xF) != ACLRT_KIND_PARAM ||
        (index >> ACLRT_PARAM_INDEX_BITS) != aclrt_slot_index(&a->hdr) || i >= a->count ||
        aclrt_param_handle(a, args_handle, i) != p)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "paramHandle %p is not a parameter of argsHandle %p", p,
                          args_handle);
    *out = (struct aclrt_args_param *)&a->params[i];
    return ACL_SUCCESS;
}

/* Natural alignment of a parameter of n bytes: the largest power of two dividing n, at most 8. */
ACLRT_INLINE uint32_t aclrt_param_align(size_t n)
{
    size_t low = n & (~n + 1);
    return low >= 8 ? 8u : (uint32_t)low;
}

ACLRT_INLINE uint32_t aclrt_align_up(uint32_t x, uint32_t align)
{
    return (x + align - 1) & ~(align - 1);
}

ACLRT_API aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
    ACLRT_ENTER();
    if (argsHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "argsHandle (output) is NULL");
    if (aclrt_args_thread == 0)
        aclrt_args_thread = atomic_fetch_add_explicit(&aclrt_args_threads, 1, memory_order_relaxed) + 1;
    struct aclrt_function *f;
    aclError rc = aclrt_function_lock_live(funcHandle, ACL_ERROR_INVALID_PARAM, &f);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_function_args_release = aclrt_args_release_of;
    struct aclrt_args *a = f->args;
    while (a != NULL && a->owner != aclrt_args_thread)
        a = a->next;
    if (a != NULL) {
        aclrt_table_retire(&a->hdr); /* the thread's previous handle for f ends; its slot and buffer go on */
    } else {
        a = (struct aclrt_args *)aclrt_table_alloc(&aclrt_args_table);
        if (a != NULL && a->buffer == NULL && (a->buffer = (unsigned char *)malloc(ACLRT_ARGS_BYTES)) == NULL) {
            aclrt_table_free(&aclrt_args_table, &a->hdr);
            a = NULL;
        }
        if (a == NULL) {
            pthread_mutex_unlock(&aclrt_kernels_lock);
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for another args handle");
        }
        a->owner = aclrt_args_thread;
        a->next = f->args;
        f->args = a;
    }
    a->function = f;
    a->function_life = atomic_load_explicit(&f->hdr.generation, memory_order_relaxed);
    a->count = 0;
    a->size = 0;
    a->placeholders = 0;
    a->finalized = 0;
    a->updating = 0;
    a->data_started = 0;
    *argsHandle = aclrt_table_publish(&aclrt_args_table, &a->hdr);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return ACL_SUCCESS;
}

/*
 * Where the next parameter (of `size` bytes, natural alignment `align`)
 * goes: where its kernel takes it, when the backend knows the kernel's
 * layout (the cuda backend: a 16-byte-aligned type, a struct; its size must
 * be the kernel's, and the kernel must take that many parameters), else at
 * the next multiple of `align`.
 */
static aclError aclrt_args_place(const struct aclrt_args *a, size_t size, uint32_t align, uint32_t *at)
{
    *at = aclrt_align_up(a->size, align);
    const struct aclrt_function *f = a->function;
    const struct aclrt_binary *b = atomic_load_explicit(&f->binary, memory_order_relaxed);
    if (b->backend->function_layout == NULL)
        return ACL_SUCCESS;
    void *function = aclrt_function_backend_handle(atomic_load_explicit(&f->fn, memory_order_relaxed));
    uint32_t count = 0, offset = 0, bytes = 0;
    if (!b->backend->function_layout(function, a->count, &count, &offset, &bytes))
        return ACL_SUCCESS;
    if (a->count >= count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the kernel takes %u parameters: there is no parameter %u",
                          count, a->count + 1);
    if (size != bytes)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "parameter %u of the kernel is %u bytes, not %zu", a->count + 1,
                          bytes, size);
    if (offset < a->size)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "parameter %u of the kernel lies at offset %u, inside the parameters before it", a->count + 1,
                          offset);
    *at = offset;
    return ACL_SUCCESS;
}

/*
 * Append to a live args handle a parameter of `size` bytes at `align`: a
 * copy of `param`, or (NULL) a placeholder, zero until each launch's copy
 * sets it; its handle. The runtime's codes [src] when there is no room.
 */
static aclError aclrt_args_append(aclrtArgsHandle args_handle, const void *param, size_t size, uint32_t align,
                                  aclrtParamHandle *param_handle)
{
    struct aclrt_args *a;
    aclError rc = aclrt_args_resolve(args_handle, &a);
    if (rc != ACL_SUCCESS)
        return rc;
    if (a->finalized)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "no parameter can be appended after aclrtKernelArgsFinalize");
    if (a->data_started)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "no parameter can be appended after a placeholder's buffer was taken");
    if (a->count == ACLRT_ARGS_MAX_PARAMS)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the args handle holds %d parameters already, the most it can",
                          ACLRT_ARGS_MAX_PARAMS);
    uint32_t at;
    if ((rc = aclrt_args_place(a, size, align, &at)) != ACL_SUCCESS)
        return rc;
    if (size > ACLRT_ARGS_BYTES || at + size > ACLRT_ARGS_BYTES)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a parameter of %zu bytes at offset %u overflows the %d bytes of "
                          "an args handle", size, at, ACLRT_ARGS_BYTES);
    memset(a->buffer + a->size, 0, at - a->size); /* the padding before it */
    uint32_t placeholder = param == NULL;
    if (placeholder)
        memset(a->buffer + at, 0, size); /* set in each launch's copy */
    else
        memcpy(a->buffer + at, param, size);
    a->params[a->count] = (struct aclrt_args_param){at, (uint32_t)size, 0, placeholder};
    *param_handle = aclrt_param_handle(a, args_handle, a->count);
    a->count++;
    a->placeholders += placeholder;
    a->size = at + (uint32_t)size;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                                         aclrtParamHandle *paramHandle)
{
    ACLRT_ENTER();
    if (param == NULL || paramHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", param == NULL ? "param" : "paramHandle (output)");
    if (paramSize == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "paramSize is 0");
    return aclrt_args_append(argsHandle, param, paramSize, aclrt_param_align(paramSize), paramHandle);
}

ACLRT_API aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle)
{
    ACLRT_ENTER();
    if (paramHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "paramHandle (output) is NULL");
    return aclrt_args_append(argsHandle, NULL, sizeof(void *), 8, paramHandle);
}

ACLRT_API aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
                                                       size_t dataSize, void **bufferAddr)
{
    ACLRT_ENTER();
    if (paramHandle == NULL || bufferAddr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", paramHandle == NULL ? "paramHandle" : "bufferAddr (output)");
    if (dataSize == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "dataSize is 0");
    struct aclrt_args *a;
    struct aclrt_args_param *p;
    aclError rc = aclrt_param_resolve(argsHandle, paramHandle, &a, &p);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!p->placeholder)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "paramHandle %p is a value (aclrtKernelArgsAppend), not a "
                          "placeholder", paramHandle);
    if (a->finalized)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "no placeholder buffer can be taken after aclrtKernelArgsFinalize");
    uint32_t at = aclrt_align_up(a->size, 8);
    if (dataSize > ACLRT_ARGS_BYTES || at + dataSize > ACLRT_ARGS_BYTES)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a placeholder buffer of %zu bytes at offset %u overflows the %d "
                          "bytes of an args handle", dataSize, at, ACLRT_ARGS_BYTES);
    p->data_offset = at;
    a->size = at + (uint32_t)dataSize;
    a->data_started = 1;
    *bufferAddr = a->buffer + at;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param,
                                             size_t paramSize)
{
    ACLRT_ENTER();
    if (paramHandle == NULL || param == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", paramHandle == NULL ? "paramHandle" : "param");
    if (paramSize == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "paramSize is 0");
    struct aclrt_args *a;
    struct aclrt_args_param *p;
    aclError rc = aclrt_param_resolve(argsHandle, paramHandle, &a, &p);
    if (rc != ACL_SUCCESS)
        return rc;
    if (p->placeholder)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "paramHandle %p is a placeholder: its data is in its buffer",
                          paramHandle);
    if (paramSize != p->size)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "paramSize %zu is not the parameter's %u bytes", paramSize,
                          p->size);
    memcpy(a->buffer + p->offset, param, paramSize);
    a->updating = 1; /* a launch needs aclrtKernelArgsFinalize again [src] */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
    ACLRT_ENTER();
    struct aclrt_args *a;
    aclError rc = aclrt_args_resolve(argsHandle, &a);
    if (rc != ACL_SUCCESS)
        return rc;
    a->finalized = 1;
    a->updating = 0;
    return ACL_SUCCESS;
}

/* Can the args handle be launched with the function `funcHandle` now? (finalized, made for it) */
ACLRT_INTERNAL aclError aclrt_args_check(const struct aclrt_args *a, aclrtFuncHandle funcHandle)
{
    if (!a->finalized || a->updating)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the args handle is %s: call aclrtKernelArgsFinalize first",
                          a->finalized ? "updated since it was finalized" : "not finalized");
    void *made_for = aclrt_handle_encode(ACLRT_KIND_FUNCTION, aclrt_slot_index(&a->function->hdr),
                                         a->function_life >> 1);
    if (made_for != funcHandle)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the args handle was initialised for function %p, not %p",
                          made_for, funcHandle);
    return ACL_SUCCESS;
}

/* A launch's copy of the args handle's a->size bytes, at c: placeholders point into the copy. */
ACLRT_INTERNAL void aclrt_args_write(const struct aclrt_args *a, unsigned char *c)
{
    memcpy(c, a->buffer, a->size);
    for (uint32_t i = 0; a->placeholders > 0 && i < a->count; i++)
        if (a->params[i].placeholder) {
            void *data = a->params[i].data_offset != 0 ? c + a->params[i].data_offset : NULL;
            memcpy(c + a->params[i].offset, &data, sizeof data);
        }
}

#endif /* ACLRT_IMPL_KERNEL_KERNEL_ARGS_H */
