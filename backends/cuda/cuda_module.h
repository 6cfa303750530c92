/*
 * backends/cuda/cuda_module.h - a kernel binary's modules, one per GPU,
 * loaded lazily, and its functions on each GPU.
 *
 * A module belongs to the context it was loaded in, and so do its
 * functions: a launch on a stream of another GPU's context needs the
 * module loaded there (the driver refuses another context's function). So
 * a binary is loaded at aclrtBinaryLoad* in the calling thread's current
 * context (its home GPU: the load's errors are reported there, and its
 * functions' records, which the core keeps as their handles, start from
 * the home GPU's CUfunction), and again
 * in another GPU's context at the first launch of one of its kernels on
 * that GPU, from the same file or a copy of the data kept for it. Each
 * function is looked up on a GPU once and kept (on[g], published with
 * release). Globals (aclrtBinaryGetGlobal) are the home GPU's.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_MODULE_H
#define ACLRT_BACKENDS_CUDA_CUDA_MODULE_H

#include "../../impl/core/base.h"
#include "../../impl/core/config.h"
#include "../../impl/kernel/binary.h"
#include "cuda_device.h"
#include "cuda_driver.h"

/* A parameter of a kernel: where it lies in the argument block the kernel takes. */
struct aclrt_cuda_param {
    uint32_t offset, size;
};

#define ACLRT_CUDA_PARAMS_UNKNOWN UINT32_MAX

/*
 * A function of a module, the core's handle of it (module_function): the
 * home GPU's CUfunction, its CUfunction on each other GPU once looked up,
 * and what every launch of it needs, read once from the home GPU's
 * function (the same image on every GPU: the same parameters), never per
 * launch (cuda_function.h).
 */
struct aclrt_cuda_function {
    struct aclrt_cuda_function *next; /* the module's list (pushed with release, freed with the module) */
    aclrt_CUfunction home;
    _Atomic(aclrt_CUfunction) on[ACLRT_MAX_DEVICES]; /* by GPU index */
    uint32_t block;                   /* threads per block */
    uint32_t params;                  /* parameters the kernel takes; ACLRT_CUDA_PARAMS_UNKNOWN: not known */
    uint32_t param_bytes;             /* the buffer it takes: the last parameter's end (0: none) */
    struct aclrt_cuda_param *layout;  /* [params] (NULL when none or not known) */
    char name[];
};

/* The module's context rides with it: a module is a record of ours. */
struct aclrt_cuda_module {
    aclrt_CUmodule mod;  /* in the home GPU's context */
    aclrt_CUcontext ctx; /* the home GPU's primary context */
    uint32_t home;       /* its GPU index */
    _Atomic(aclrt_CUmodule) on[ACLRT_MAX_DEVICES]; /* loaded on other GPUs, by GPU index (lock) */
    _Atomic(struct aclrt_cuda_function *) functions;
    pthread_mutex_t lock; /* loads on other GPUs, lookups there */
    char *path;           /* what to load again: the file, */
    void *image;          /* ... or a copy of the data */
};

/* The GPU index whose primary context is ctx (the home of a module loaded there). */
ACLRT_INTERNAL uint32_t aclrt_cuda_gpu_of_ctx(aclrt_CUcontext ctx)
{
    for (uint32_t g = 0; g < aclrt_cuda.gpu_count; g++)
        if (aclrt_cuda.gpus[g].ctx == ctx)
            return g;
    return 0;
}

/* The record of the home module's function f, if it was looked up before (the core's lock of the function lists). */
ACLRT_INTERNAL struct aclrt_cuda_function *aclrt_cuda_function_find(struct aclrt_cuda_module *m, aclrt_CUfunction f)
{
    struct aclrt_cuda_function *x = atomic_load_explicit(&m->functions, memory_order_acquire);
    while (x != NULL && x->home != f)
        x = x->next;
    return x;
}

/* A new record of the home module's function f named `name` (not in the module's list yet); NULL: no memory. */
ACLRT_INTERNAL struct aclrt_cuda_function *aclrt_cuda_function_new(const char *name, aclrt_CUfunction f)
{
    size_t len = strlen(name);
    struct aclrt_cuda_function *x = (struct aclrt_cuda_function *)calloc(1, sizeof *x + len + 1);
    if (x == NULL)
        return NULL;
    x->home = f;
    memcpy(x->name, name, len + 1);
    return x;
}

/* The record x, filled, joins the module's list (the core's lock of the function lists held). */
ACLRT_INTERNAL void aclrt_cuda_function_add(struct aclrt_cuda_module *m, struct aclrt_cuda_function *x)
{
    pthread_mutex_lock(&m->lock);
    x->next = atomic_load_explicit(&m->functions, memory_order_relaxed);
    /* Release: pairs with the lookups' acquire loads (the record's fields). */
    atomic_store_explicit(&m->functions, x, memory_order_release);
    pthread_mutex_unlock(&m->lock);
}

/*
 * The handle of function x (the core's handle, module_function's record)
 * of binary bin on GPU g, whose context is current: its home handle at
 * home, else the module loaded and the function looked up there the first
 * time.
 */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_function_on(struct aclrt_binary *bin, struct aclrt_cuda_function *x,
                                                     uint32_t g, aclrt_CUfunction *out)
{
    *out = x->home;
    struct aclrt_cuda_module *m =
        bin != NULL ? (struct aclrt_cuda_module *)atomic_load_explicit(&bin->module, memory_order_acquire) : NULL;
    if (ACLRT_LIKELY(m == NULL || g == m->home))
        return ACLRT_CUDA_SUCCESS;
    /* Acquire: pairs with the release store below (the driver's handle, its module loaded). */
    aclrt_CUfunction f = atomic_load_explicit(&x->on[g], memory_order_acquire);
    if (ACLRT_LIKELY(f != NULL)) {
        *out = f;
        return ACLRT_CUDA_SUCCESS;
    }
    aclrt_CUresult r = ACLRT_CUDA_SUCCESS;
    pthread_mutex_lock(&m->lock);
    aclrt_CUmodule mod = atomic_load_explicit(&m->on[g], memory_order_relaxed);
    if (mod == NULL) {
        r = m->path != NULL ? aclrt_cu->cuModuleLoad(&mod, m->path) : aclrt_cu->cuModuleLoadData(&mod, m->image);
        if (r == ACLRT_CUDA_SUCCESS)
            atomic_store_explicit(&m->on[g], mod, memory_order_relaxed);
    }
    if (r == ACLRT_CUDA_SUCCESS && (f = atomic_load_explicit(&x->on[g], memory_order_relaxed)) == NULL &&
        (r = aclrt_cu->cuModuleGetFunction(&f, mod, x->name)) == ACLRT_CUDA_SUCCESS)
        atomic_store_explicit(&x->on[g], f, memory_order_release);
    pthread_mutex_unlock(&m->lock);
    if (r == ACLRT_CUDA_SUCCESS)
        *out = f;
    return r;
}

/* The module's record goes (its driver modules were unloaded): its functions, what it kept to load again. */
ACLRT_INTERNAL void aclrt_cuda_module_free(struct aclrt_cuda_module *m)
{
    struct aclrt_cuda_function *x = atomic_load_explicit(&m->functions, memory_order_acquire);
    while (x != NULL) {
        struct aclrt_cuda_function *next = x->next;
        free(x->layout);
        free(x);
        x = next;
    }
    pthread_mutex_destroy(&m->lock);
    free(m->path);
    free(m->image);
    free(m);
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_MODULE_H */
