/*
 * backends/cuda/cuda_module.h - a kernel binary's modules, one per GPU,
 * loaded lazily, and its functions on each GPU.
 *
 * A module belongs to the context it was loaded in, and so do its
 * functions: a launch on a stream of another GPU's context needs the
 * module loaded there (the driver refuses another context's function). So
 * a binary is loaded at aclrtBinaryLoad* in the calling thread's current
 * context (its home GPU: the load's errors are reported there, and its
 * functions' handles, which the core keeps, are the home GPU's), and again
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

/* A function of a module: the home GPU's handle (the core's), and its handle on each other GPU once looked up. */
struct aclrt_cuda_function {
    struct aclrt_cuda_function *next; /* the module's list (pushed with release, freed with the module) */
    aclrt_CUfunction home;
    _Atomic(aclrt_CUfunction) on[ACLRT_MAX_DEVICES]; /* by GPU index */
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

/* Note a function looked up in the home module (module_function; the core's lock of the function lists held). */
ACLRT_INTERNAL bool aclrt_cuda_function_note(struct aclrt_cuda_module *m, const char *name, aclrt_CUfunction f)
{
    for (struct aclrt_cuda_function *x = atomic_load_explicit(&m->functions, memory_order_acquire); x != NULL;
         x = x->next)
        if (x->home == f)
            return true;
    size_t len = strlen(name);
    struct aclrt_cuda_function *x = (struct aclrt_cuda_function *)calloc(1, sizeof *x + len + 1);
    if (x == NULL)
        return false;
    x->home = f;
    memcpy(x->name, name, len + 1);
    pthread_mutex_lock(&m->lock);
    x->next = atomic_load_explicit(&m->functions, memory_order_relaxed);
    /* Release: pairs with the launches' acquire loads (the record's fields). */
    atomic_store_explicit(&m->functions, x, memory_order_release);
    pthread_mutex_unlock(&m->lock);
    return true;
}

/*
 * The handle of function fn (the core's, the home GPU's) of binary bin on
 * GPU g, whose context is current: fn itself at home, else the module
 * loaded and the function looked up there the first time.
 */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_function_on(struct aclrt_binary *bin, void *fn, uint32_t g,
                                                     aclrt_CUfunction *out)
{
    memcpy(out, &fn, sizeof fn);
    struct aclrt_cuda_module *m =
        bin != NULL ? (struct aclrt_cuda_module *)atomic_load_explicit(&bin->module, memory_order_acquire) : NULL;
    if (ACLRT_LIKELY(m == NULL || g == m->home))
        return ACLRT_CUDA_SUCCESS;
    struct aclrt_cuda_function *x = atomic_load_explicit(&m->functions, memory_order_acquire);
    while (x != NULL && x->home != *out)
        x = x->next;
    if (x == NULL)
        return ACLRT_CUDA_ERROR_INVALID_HANDLE; /* not a function of this binary */
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
        free(x);
        x = next;
    }
    pthread_mutex_destroy(&m->lock);
    free(m->path);
    free(m->image);
    free(m);
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_MODULE_H */
