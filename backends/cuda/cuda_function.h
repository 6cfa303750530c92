/*
 * backends/cuda/cuda_function.h - a kernel's parameter layout and block.
 *
 * What every launch of a function of a module needs (its record,
 * aclrt_cuda_function in cuda_module.h), read from the home GPU's
 * CUfunction once when it is looked up (never per launch), kept until its
 * module is unloaded (no launch of it is in flight then).
 *   - Its parameters, from cuFuncGetParamInfo (CUDA 12.4): each one's
 *     offset and size in the buffer the kernel takes, and that buffer's
 *     size, the end of the last parameter (the driver refuses any other
 *     CU_LAUNCH_PARAM_BUFFER_SIZE, tail padding included). A launch
 *     whose argument block is shorter is refused at the call
 *     (aclrt_cuda_function_args); a longer one (a C struct's tail padding,
 *     placeholder data behind the parameters) passes the kernel's size.
 *     Not known (no cuFuncGetParamInfo, or it fails otherwise than past
 *     the last parameter): the block is passed as given, as before.
 *   - Its block: ACLRT_CUDA_BLOCK_THREADS threads, fewer where the kernel
 *     takes fewer (cuFuncGetAttribute MAX_THREADS_PER_BLOCK: a kernel
 *     compiled with __launch_bounds__ or many registers); more would fail
 *     the launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES).
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_FUNCTION_H
#define ACLRT_BACKENDS_CUDA_CUDA_FUNCTION_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_kinds.h"
#include "cuda_module.h"

/* The backend's handle of a function (module_function) as a task holds it (kernel.fn). */
ACLRT_INLINE struct aclrt_cuda_function *aclrt_cuda_function_of(aclrtxHostKernel fn)
{
    struct aclrt_cuda_function *cf;
    memcpy(&cf, &fn, sizeof cf);
    return cf;
}

/* The parameter layout of f, from the driver (the context is current); false if not known. */
static bool aclrt_cuda_function_layout(struct aclrt_cuda_function *cf)
{
    if (aclrt_cu->cuFuncGetParamInfo == NULL)
        return false;
    uint32_t n = 0, cap = 0, end = 0;
    struct aclrt_cuda_param *layout = NULL;
    for (;; n++) {
        size_t offset = 0, size = 0;
        aclrt_CUresult r = aclrt_cu->cuFuncGetParamInfo(cf->home, n, &offset, &size);
        if (r == ACLRT_CUDA_ERROR_INVALID_VALUE) /* past the last parameter (or none) */
            break;
        if (r != ACLRT_CUDA_SUCCESS || offset > UINT32_MAX || size > UINT32_MAX || offset < end) {
            free(layout);
            return false;
        }
        if (n == cap) {
            cap = cap != 0 ? 2 * cap : 8;
            struct aclrt_cuda_param *more = (struct aclrt_cuda_param *)realloc(layout, cap * sizeof *layout);
            if (more == NULL) {
                free(layout);
                return false;
            }
            layout = more;
        }
        layout[n] = (struct aclrt_cuda_param){(uint32_t)offset, (uint32_t)size};
        end = (uint32_t)(offset + size);
    }
    cf->params = n;
    cf->param_bytes = end;
    cf->layout = layout;
    return true;
}

/* Fill in the block and parameters of record cf from the driver (its home context is current). */
static void aclrt_cuda_function_read(struct aclrt_cuda_function *cf)
{
    cf->block = ACLRT_CUDA_BLOCK_THREADS;
    int most = 0;
    if (aclrt_cu->cuFuncGetAttribute != NULL &&
        aclrt_cu->cuFuncGetAttribute(&most, ACLRT_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, cf->home) ==
            ACLRT_CUDA_SUCCESS &&
        most > 0 && (uint32_t)most < cf->block)
        cf->block = (uint32_t)most;
    if (!aclrt_cuda_function_layout(cf))
        cf->params = ACLRT_CUDA_PARAMS_UNKNOWN;
}

/*
 * The record of the home module's function f named `name` (module_function;
 * the core's lock of the function lists held, the home context current):
 * the one made at an earlier lookup, else a new one, read, then published.
 * NULL: out of memory.
 */
ACLRT_INTERNAL struct aclrt_cuda_function *aclrt_cuda_function_record(struct aclrt_cuda_module *m, const char *name,
                                                                      aclrt_CUfunction f)
{
    struct aclrt_cuda_function *cf = aclrt_cuda_function_find(m, f);
    if (cf != NULL)
        return cf;
    if ((cf = aclrt_cuda_function_new(name, f)) == NULL)
        return NULL;
    aclrt_cuda_function_read(cf);
    aclrt_cuda_function_add(m, cf);
    return cf;
}

/* The backend's function_entry: the home GPU's CUfunction. */
ACLRT_INTERNAL void *aclrt_cuda_function_entry(void *function)
{
    return (void *)((const struct aclrt_cuda_function *)function)->home;
}

/*
 * The backend's function_layout: whether the kernel's layout is known; then
 * the number of its parameters, and parameter `index`'s offset and size if
 * it has one.
 */
ACLRT_INTERNAL bool aclrt_cuda_function_layout_of(void *function, uint32_t index, uint32_t *count, uint32_t *offset,
                                                  uint32_t *size)
{
    const struct aclrt_cuda_function *cf = (const struct aclrt_cuda_function *)function;
    if (cf->params == ACLRT_CUDA_PARAMS_UNKNOWN)
        return false;
    *count = cf->params;
    if (index < cf->params) {
        *offset = cf->layout[index].offset;
        *size = cf->layout[index].size;
    }
    return true;
}

/* The backend's function_args: an argument block of `size` bytes is refused if shorter than the kernel's. */
ACLRT_INTERNAL aclError aclrt_cuda_function_args(void *function, uint32_t size)
{
    const struct aclrt_cuda_function *cf = (const struct aclrt_cuda_function *)function;
    if (ACLRT_LIKELY(cf->params == ACLRT_CUDA_PARAMS_UNKNOWN || size >= cf->param_bytes))
        return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "the argument block of %u bytes is shorter than the %u bytes of the kernel's %u parameters "
                      "(cuFuncGetParamInfo): the driver would refuse the launch",
                      size, cf->param_bytes, cf->params);
}

/* The buffer size to pass for a block of `size` bytes: the kernel's own, when known (its launch was checked). */
ACLRT_INLINE size_t aclrt_cuda_function_bytes(const struct aclrt_cuda_function *cf, uint32_t size)
{
    return cf->params == ACLRT_CUDA_PARAMS_UNKNOWN ? size : cf->param_bytes;
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_FUNCTION_H */
