/*
 * backends/cuda/cuda_kernel.h - kernel binaries and launches on the GPU.
 *
 *   - A binary is a module of the driver's loader: a cubin, fatbin or PTX
 *     image, from a file (cuModuleLoad) or from memory (cuModuleLoadData).
 *     The driver reads an image in memory by its own format, not by a
 *     length, so the bytes are checked first: an ELF image (a cubin) whose
 *     headers lie within `size`, a fatbin whose header and payload do, or
 *     PTX text with its NUL inside. Anything else, and whatever the loader
 *     refuses, is ACL_ERROR_RT_PARAM_INVALID with the reason. The module
 *     is loaded in the calling thread's current context (the one of the
 *     device it last used, else the first GPU's): a kernel launched on a
 *     stream of another GPU fails its task (the driver's invalid handle).
 *   - A function is cuModuleGetFunction's CUfunction; a global is
 *     cuModuleGetGlobal's device address and size.
 *   - A launch is cuLaunchKernel on the stream's CUstream: numBlocks is the
 *     grid (x), the block is ACLRT_CUDA_BLOCK_THREADS threads (no ACL
 *     launch attribute gives one; the kernel covers its data with a loop
 *     over gridDim and blockDim), no dynamic shared memory, and the
 *     arguments are the packed buffer (CU_LAUNCH_PARAM_BUFFER_POINTER and
 *     _SIZE; the driver copies it at the call). Arguments in device memory
 *     (aclrtLaunchKernel) are read when the kernel runs: the launch waits
 *     on the host until the stream's earlier work is done (the barrier),
 *     copies them, then launches.
 *   - The task completes through a host function of ours behind the kernel
 *     (it counts the launch done on its binary, so an unload leaves the
 *     module loaded until its queued kernels ran; a module whose last
 *     launch ends on the driver's thread is unloaded later, by the next
 *     thread that loads or unloads one, or when the backend closes). With
 *     a launch timeout, another host function before the kernel notes when
 *     the stream reached it, and the task fails with
 *     ACL_ERROR_RT_AICORE_TIMEOUT if the kernel took longer (the GPU cannot
 *     stop it).
 *   - A kernel that faults stops its stream; the next waiter that asks the
 *     driver reports it (cuda_stream.h) with its function and arguments,
 *     which the slot keeps for its last ACLRT_CUDA_TID_RING tasks.
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_KERNEL_H
#define ACLRT_BACKENDS_CUDA_CUDA_KERNEL_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/error.h"
#include "../../impl/task/task.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/stream.h"
#include "../../impl/exec/exception.h"
#include "../../impl/exec/exec.h"
#include "../../impl/kernel/binary.h"
#include "../../impl/kernel/kernel_launch.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_graph.h"
#include "cuda_kinds.h"
#include "cuda_stream.h"

#include <elf.h>

#define ACLRT_CUDA_FATBIN_MAGIC 0xBA55ED50u

/* ------------------------------------------------------------------------
 * Modules
 * ------------------------------------------------------------------------ */

/* Modules whose unload came on a driver callback thread, unloaded by the next ordinary thread. */
static struct aclrt_cuda_module_later {
    struct aclrt_cuda_module_later *next;
    aclrt_CUmodule mod;
    aclrt_CUcontext ctx;
} *_Atomic aclrt_cuda_modules_later; /* a stack: pushed by callbacks (no lock there), taken whole */

ACLRT_INTERNAL void aclrt_cuda_modules_unload_later(void)
{
    aclrt_cuda_graphs_destroy_later(); /* first: a graph let go of may hold kernels of these modules */
    /* Acquire: pairs with the release CAS of the push (the records' fields). */
    struct aclrt_cuda_module_later *list = atomic_exchange_explicit(&aclrt_cuda_modules_later, NULL, memory_order_acquire);
    bool driver = !aclrt_runtime_orphaned();
    for (struct aclrt_cuda_module_later *m = list, *next; m != NULL; m = next) {
        next = m->next;
        if (driver && aclrt_cuda_enter(m->ctx) == ACLRT_CUDA_SUCCESS)
            aclrt_cu->cuModuleUnload(m->mod);
        free(m);
    }
}

/* The module's context rides with it: a module is a small record of ours. */
struct aclrt_cuda_module {
    aclrt_CUmodule mod;
    aclrt_CUcontext ctx;
};

/* Is the image at `image` one the loader reads entirely within `size` bytes? The reason if not. */
static const char *aclrt_cuda_image_problem(const void *image, size_t size)
{
    const unsigned char *p = (const unsigned char *)image;
    if (size >= SELFMAG && memcmp(p, ELFMAG, SELFMAG) == 0) { /* a cubin */
        Elf64_Ehdr eh;
        if (size < sizeof eh || p[EI_CLASS] != ELFCLASS64)
            return "an ELF image too short, or not 64-bit";
        memcpy(&eh, p, sizeof eh);
        uint64_t sh_end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
        uint64_t ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
        if (eh.e_shoff > size || sh_end > size || eh.e_phoff > size || ph_end > size)
            return "an ELF image whose headers lie beyond its length";
        return NULL;
    }
    uint32_t magic = 0;
    if (size >= 16 && (memcpy(&magic, p, sizeof magic), magic == ACLRT_CUDA_FATBIN_MAGIC)) { /* a fatbin */
        uint16_t header;
        uint64_t payload;
        memcpy(&header, p + 6, sizeof header);
        memcpy(&payload, p + 8, sizeof payload);
        if (header < 16 || payload > size || header + payload > size)
            return "a fatbin whose contents lie beyond its length";
        return NULL;
    }
    if (memchr(p, '\0', size) != NULL && memchr(p, '\0', size) != (const void *)p) /* PTX: text, NUL-terminated */
        return NULL;
    return "neither a cubin (ELF), a fatbin nor NUL-terminated PTX text";
}

/* ACL's code for a failed driver call on a module: the image or name is at fault, unless the driver failed. */
static aclError aclrt_cuda_module_fail(aclrt_CUresult r, const char *what, const char *shown)
{
    char name[96];
    aclrt_cuda_error_name(aclrt_cu, r, name, sizeof name);
    switch (r) {
    case ACLRT_CUDA_ERROR_INVALID_VALUE:
    case ACLRT_CUDA_ERROR_INVALID_IMAGE:
    case ACLRT_CUDA_ERROR_NO_BINARY_FOR_GPU:
    case ACLRT_CUDA_ERROR_INVALID_PTX:
    case ACLRT_CUDA_ERROR_INVALID_SOURCE:
    case ACLRT_CUDA_ERROR_FILE_NOT_FOUND:
    case ACLRT_CUDA_ERROR_NOT_FOUND:
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s is not a binary the cuda backend can load: %s says %s", shown,
                          what, name);
    default: return aclrt_fail(aclrt_cuda_code(r), "%s: %s failed: %s", shown, what, name);
    }
}

/* The backend's module_load: cuModuleLoad (a file) or cuModuleLoadData (checked bytes). */
ACLRT_INTERNAL aclError aclrt_cuda_module_load(const char *path, const char *shown, const void *image, size_t size,
                                               void **out)
{
    (void)shown; /* messages name the path the driver was given */
    if (path == NULL) {
        const char *problem = aclrt_cuda_image_problem(image, size);
        if (problem != NULL)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the data is not a binary the cuda backend can load: %s",
                              problem);
    }
    aclrt_cuda_modules_unload_later();
    struct aclrt_cuda_module *m = (struct aclrt_cuda_module *)malloc(sizeof *m);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for a module");
    aclrt_CUresult r = aclrt_cuda_enter_any();
    if (r == ACLRT_CUDA_SUCCESS) {
        m->ctx = aclrt_cuda_current.ctx;
        r = path != NULL ? aclrt_cu->cuModuleLoad(&m->mod, path) : aclrt_cu->cuModuleLoadData(&m->mod, image);
    }
    if (r != ACLRT_CUDA_SUCCESS) {
        free(m);
        return aclrt_cuda_module_fail(r, path != NULL ? "cuModuleLoad" : "cuModuleLoadData",
                                      path != NULL ? path : "the data");
    }
    *out = m;
    return ACL_SUCCESS;
}

/* The backend's module_unload: now, or (on a driver callback thread) by the next ordinary thread. */
ACLRT_INTERNAL void aclrt_cuda_module_unload(void *module)
{
    struct aclrt_cuda_module *m = (struct aclrt_cuda_module *)module;
    if (aclrt_cuda_in_callback) {
        struct aclrt_cuda_module_later *l = (struct aclrt_cuda_module_later *)malloc(sizeof *l);
        if (l != NULL) { /* out of memory: the module stays loaded until its context goes */
            l->mod = m->mod;
            l->ctx = m->ctx;
            l->next = atomic_load_explicit(&aclrt_cuda_modules_later, memory_order_relaxed);
            /* Release: pairs with the taker's acquire exchange. */
            while (!atomic_compare_exchange_weak_explicit(&aclrt_cuda_modules_later, &l->next, l, memory_order_release,
                                                          memory_order_relaxed))
                ;
        }
    } else if (!aclrt_runtime_orphaned() && aclrt_cuda_enter(m->ctx) == ACLRT_CUDA_SUCCESS) {
        aclrt_cu->cuModuleUnload(m->mod);
        aclrt_cuda_modules_unload_later();
    }
    free(m);
}

/* The backend's module_function: the CUfunction; the driver does not say the kernel's code size. */
ACLRT_INTERNAL aclError aclrt_cuda_module_function(void *module, const char *name, void **function, size_t *code_size)
{
    struct aclrt_cuda_module *m = (struct aclrt_cuda_module *)module;
    aclrt_CUfunction f = NULL;
    aclrt_CUresult r = aclrt_cuda_enter(m->ctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuModuleGetFunction(&f, m->mod, name);
    if (r != ACLRT_CUDA_SUCCESS)
        return r == ACLRT_CUDA_ERROR_NOT_FOUND
                   ? aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the binary has no kernel named \"%s\"", name)
                   : aclrt_cuda_module_fail(r, "cuModuleGetFunction", name);
    *function = (void *)f;
    *code_size = 0;
    return ACL_SUCCESS;
}

ACLRT_INTERNAL aclError aclrt_cuda_module_global(void *module, const char *name, void **address, size_t *size)
{
    struct aclrt_cuda_module *m = (struct aclrt_cuda_module *)module;
    aclrt_CUdeviceptr p = 0;
    size_t bytes = 0;
    aclrt_CUresult r = aclrt_cuda_enter(m->ctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuModuleGetGlobal(&p, &bytes, m->mod, name);
    if (r != ACLRT_CUDA_SUCCESS)
        return r == ACLRT_CUDA_ERROR_NOT_FOUND
                   ? aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the binary has no global variable named \"%s\"", name)
                   : aclrt_cuda_module_fail(r, "cuModuleGetGlobal", name);
    *address = (void *)(uintptr_t)p;
    *size = bytes;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Launches
 * ------------------------------------------------------------------------ */

static void aclrt_cuda_launch_start_cb(void *arg)
{
    struct aclrt_cuda_launch *l = (struct aclrt_cuda_launch *)arg;
    /* Relaxed: the done callback runs after this one on the same driver queue (its order). */
    atomic_store_explicit(&l->start_ns, aclrt_now_ns(), memory_order_relaxed);
    aclrt_cuda_host_fn_end();
}

/* Behind the kernel: the timeout, the binary's count, the task's completion. */
static void aclrt_cuda_launch_done_cb(void *arg)
{
    struct aclrt_cuda_launch *l = (struct aclrt_cuda_launch *)arg;
    struct aclrt_cuda_slot *sl = l->slot;
    aclrt_cuda_in_callback = true;
    if (l->timeout_ms != 0 &&
        aclrt_now_ns() - atomic_load_explicit(&l->start_ns, memory_order_relaxed) > (uint64_t)l->timeout_ms * 1000000u)
        aclrt_stream_fail_kernel(l->stream, l->tid, l->number, ACL_ERROR_RT_AICORE_TIMEOUT, &l->kernel);
    pthread_mutex_lock(&sl->launch_lock);
    if (sl->launches[l->number % ACLRT_CUDA_TID_RING] == l)
        sl->launches[l->number % ACLRT_CUDA_TID_RING] = NULL;
    pthread_mutex_unlock(&sl->launch_lock);
    aclrt_binary_done(l->binary); /* may unload the module: later, off this thread */
    uint64_t n = l->number;
    free(l->kernel.args);
    free(l);
    aclrt_cuda_callback_complete(sl, n);
}

/*
 * ACLRT_TASK_KERNEL: cuLaunchKernel with the packed arguments, between the
 * optional start callback and the done callback. A failure to issue fails
 * the task (and it completes in order), as every issue does.
 */
static int aclrt_cuda_kernel_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cuda_slot *sl = aclrt_cuda_slot_of(s);
    /*
     * Behind the barrier when the arguments are read from device memory, or
     * when a host function before it may block (aclrtStreamAbort and a
     * force destroy can then still discard the launch, as on the host
     * backend: a kernel on the GPU queue cannot be taken back).
     */
    bool barrier = !t->u.kernel.owned || !aclrt_stream_reached(s, atomic_load_explicit(&sl->may_block, memory_order_relaxed));
    int g = barrier ? aclrt_cuda_barrier(s, blk) : aclrt_cuda_gate(s, sl, blk);
    if (g != 0)
        return g;
    uint64_t n = s->issued;
    atomic_store_explicit(&sl->tids[n % ACLRT_CUDA_TID_RING], t->tid, memory_order_relaxed);
    struct aclrt_cuda_launch *l = (struct aclrt_cuda_launch *)malloc(sizeof *l);
    void *args = t->u.kernel.owned ? t->u.kernel.args : malloc(t->u.kernel.args_size);
    aclrt_CUresult r = l == NULL || args == NULL ? ACLRT_CUDA_ERROR_OUT_OF_MEMORY : aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS && !t->u.kernel.owned) /* device memory, read now: the stream's earlier work is done */
        r = aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)args, (aclrt_CUdeviceptr)(uintptr_t)t->u.kernel.args,
                               t->u.kernel.args_size);
    if (ACLRT_UNLIKELY(r != ACLRT_CUDA_SUCCESS)) {
        if (!t->u.kernel.owned)
            free(args);
        free(l);
        aclrt_kernel_task_done(t, false);
        return aclrt_cuda_issue_failed(s, sl, t, n, r);
    }
    t->u.kernel.owned = 0; /* the launch's record owns the copy from here */
    *l = (struct aclrt_cuda_launch){.slot = sl, .stream = s, .number = n, .tid = t->tid,
                                    .timeout_ms = t->u.kernel.timeout_ms, .binary = t->u.kernel.binary,
                                    .kernel = {t->u.kernel.handle, t->u.kernel.fn, args, t->u.kernel.args_size}};
    atomic_init(&l->start_ns, 0);
    t->u.kernel.binary = NULL; /* counted done by the done callback */
    if (l->timeout_ms != 0)
        r = aclrt_cuda_host_fn(sl->cu, aclrt_cuda_launch_start_cb, l);
    aclrt_CUfunction f;
    memcpy(&f, &t->u.kernel.fn, sizeof f); /* the backend's function handle (module_function) */
    size_t size = t->u.kernel.args_size;
    void *extra[] = {(void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, args,
                     (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, &size,
                     (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_END_AS_INT};
    /* Known to a failure report before the kernel can fail. */
    pthread_mutex_lock(&sl->launch_lock);
    sl->launches[n % ACLRT_CUDA_TID_RING] = l;
    pthread_mutex_unlock(&sl->launch_lock);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuLaunchKernel(f, t->u32, 1, 1, ACLRT_CUDA_BLOCK_THREADS, 1, 1, 0, sl->cu, NULL, extra);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_host_fn(sl->cu, aclrt_cuda_launch_done_cb, l);
    if (r == ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_issued(sl, n);
        return ACLRT_TASK_ISSUED;
    }
    pthread_mutex_lock(&sl->launch_lock);
    sl->launches[n % ACLRT_CUDA_TID_RING] = NULL;
    pthread_mutex_unlock(&sl->launch_lock);
    /*
     * Not issued whole: the task fails and completes in order. A start
     * callback already queued still writes into the record: it is kept
     * then (a few bytes, once per such failure).
     */
    struct aclrt_kernel_failure k = l->kernel;
    int rc = aclrt_cuda_issue_failed_kernel(s, sl, t, n, r, &k);
    aclrt_binary_done(l->binary);
    free(args);
    l->kernel.args = NULL;
    if (l->timeout_ms == 0)
        free(l);
    return rc;
}

static const struct aclrt_task_kind aclrt_cuda_kind_kernel =
    ACLRT_CUDA_KIND(ACLRT_TASK_KERNEL, "kernel (cuLaunchKernel)", aclrt_cuda_kernel_run);

#endif /* ACLRT_BACKENDS_CUDA_CUDA_KERNEL_H */
