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
 *     device it last used, else the first GPU's), and in another GPU's
 *     context at the first launch of one of its kernels there
 *     (cuda_module.h).
 *   - A global is cuModuleGetGlobal's device address and size.
 *   - A function is a record of ours (aclrt_cuda_function, cuda_module.h):
 *     its CUfunction on each GPU, its parameter layout and its block, read
 *     once when it is looked up (cuda_function.h).
 *   - A launch is cuLaunchKernel on the stream's CUstream: numBlocks is the
 *     grid (x), the block is ACLRT_CUDA_BLOCK_THREADS threads or the
 *     kernel's most if fewer (no ACL launch attribute gives one; the kernel
 *     covers its data with a loop over gridDim and blockDim), no dynamic
 *     shared memory, and the arguments are the packed buffer
 *     (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE, the kernel's exact size;
 *     the driver copies it at the call; the buffer is malloc'd, 16-byte
 *     aligned). Arguments in device memory
 *     (aclrtLaunchKernel) are read when the kernel runs: the launch waits
 *     on the host until the stream's earlier work is done (the barrier),
 *     copies them, then launches.
 *   - The task completes as every GPU task does: the GPU writes its number
 *     into the stream's completion word behind the kernel
 *     (cuStreamWriteValue64, aclrt_cuda_complete_after). No host function
 *     follows a kernel: the stream goes on to its next kernel without
 *     waiting for the CPU, and no stream's kernels queue behind the
 *     driver's one callback thread. The launch's record (its binary counted
 *     in flight, its copy of the arguments) waits in the slot's FIFO
 *     (cuda_stream.h) until an ordinary thread sees the word past it: the
 *     holder at its next kernel, a waiter, the stream's destroy,
 *     or any module load or unload; it counts the launch done on its
 *     binary then, so an unload leaves the module loaded until its queued
 *     kernels ran, and the module goes on such a thread.
 *   - With a launch timeout, the kernel is measured on the host, between
 *     two host functions of ours: one before it notes when the stream
 *     reached it, one behind it fails the task with
 *     ACL_ERROR_RT_AICORE_TIMEOUT if it took longer (the GPU cannot stop
 *     it) and then stores the task's number itself, so that the failure is
 *     known before the task completes. Such launches pay the host round
 *     trip; the record stays in the FIFO as any other (the host functions
 *     hold references of their own to it).
 *   - A kernel that faults stops its stream; the next waiter that asks the
 *     driver reports it (cuda_stream.h) with its function, arguments and
 *     thread, from its record (the first task after the word: not retired).
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
#include "../../impl/kernel/dump.h"
#include "../../impl/kernel/kernel_launch.h"
#include "cuda_device.h"
#include "cuda_driver.h"
#include "cuda_function.h"
#include "cuda_graph.h"
#include "cuda_kinds.h"
#include "cuda_module.h"
#include "cuda_stream.h"

#include <elf.h>

#define ACLRT_CUDA_FATBIN_MAGIC 0xBA55ED50u

/* ------------------------------------------------------------------------
 * Modules
 * ------------------------------------------------------------------------ */

/*
 * Modules whose unload came on a driver callback thread (none of ours
 * retires a launch there; kept for any other path that may), unloaded by
 * the next ordinary thread.
 */
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
    aclrt_cuda_retire_everywhere(); /* binaries unloaded before, whose launches ran since, close now */
    aclrt_cuda_modules_unload_later();
    struct aclrt_cuda_module *m = (struct aclrt_cuda_module *)calloc(1, sizeof *m);
    if (m != NULL) { /* what another GPU's context loads again, at its first launch there (cuda_module.h) */
        if (path != NULL)
            m->path = strdup(path);
        else if ((m->image = malloc(size)) != NULL)
            memcpy(m->image, image, size);
    }
    if (m == NULL || (m->path == NULL && m->image == NULL)) {
        if (m != NULL)
            free(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for a module");
    }
    pthread_mutex_init(&m->lock, NULL);
    aclrt_CUresult r = aclrt_cuda_enter_any();
    if (r == ACLRT_CUDA_SUCCESS) {
        m->ctx = aclrt_cuda_current.ctx;
        m->home = aclrt_cuda_gpu_of_ctx(m->ctx);
        r = path != NULL ? aclrt_cu->cuModuleLoad(&m->mod, path) : aclrt_cu->cuModuleLoadData(&m->mod, image);
    }
    if (r != ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_module_free(m);
        return aclrt_cuda_module_fail(r, path != NULL ? "cuModuleLoad" : "cuModuleLoadData",
                                      path != NULL ? path : "the data");
    }
    *out = m;
    return ACL_SUCCESS;
}

/* One driver module left to the next ordinary thread (a driver callback thread calls no driver function). */
static void aclrt_cuda_module_later(aclrt_CUmodule mod, aclrt_CUcontext ctx)
{
    struct aclrt_cuda_module_later *l = (struct aclrt_cuda_module_later *)malloc(sizeof *l);
    if (l == NULL)
        return; /* out of memory: the module stays loaded until its context goes */
    l->mod = mod;
    l->ctx = ctx;
    l->next = atomic_load_explicit(&aclrt_cuda_modules_later, memory_order_relaxed);
    /* Release: pairs with the taker's acquire exchange. */
    while (!atomic_compare_exchange_weak_explicit(&aclrt_cuda_modules_later, &l->next, l, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

/*
 * The backend's module_unload: the binary's module on each GPU it was
 * loaded on, now, or (on a driver callback thread) by the next ordinary
 * thread.
 */
ACLRT_INTERNAL void aclrt_cuda_module_unload(void *module)
{
    struct aclrt_cuda_module *m = (struct aclrt_cuda_module *)module;
    bool driver = !aclrt_runtime_orphaned();
    for (uint32_t i = 0; i <= aclrt_cuda.gpu_count; i++) {
        /* i == 0: the home module (its context: m->ctx); then GPU i - 1's, if loaded there. */
        uint32_t g = i - 1;
        aclrt_CUmodule mod = i == 0 ? m->mod : atomic_load_explicit(&m->on[g], memory_order_relaxed);
        aclrt_CUcontext ctx = i == 0 ? m->ctx : aclrt_cuda.gpus[g].ctx;
        if (mod == NULL || (i != 0 && g == m->home))
            continue;
        if (aclrt_cuda_in_callback)
            aclrt_cuda_module_later(mod, ctx);
        else if (driver && aclrt_cuda_enter(ctx) == ACLRT_CUDA_SUCCESS)
            aclrt_cu->cuModuleUnload(mod);
    }
    if (!aclrt_cuda_in_callback && driver) {
        aclrt_cuda_retire_everywhere();
        aclrt_cuda_modules_unload_later();
    }
    aclrt_cuda_module_free(m);
}

/* The backend's module_function: our record of the kernel; the driver does not say its code size. */
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
    struct aclrt_cuda_function *cf = aclrt_cuda_function_record(m, name, f);
    if (cf == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no memory for the record of kernel \"%s\"", name);
    *function = cf;
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

/*
 * A kernel launch in flight: its record in the slot's FIFO until the task
 * is complete. `refs`: the FIFO's, and with a timeout each host function's
 * not run yet. Without a timeout the FIFO's alone, and no atomic is
 * touched. A timed launch is also in aclrt_cuda_timed until freed: on a
 * lost device the driver never runs its host functions, and the backend's
 * close takes their references then (aclrt_cuda_launches_reclaim).
 */
struct aclrt_cuda_launch {
    struct aclrt_cuda_held held;        /* first: the FIFO's record (number, tid, kernel, retire) */
    _Atomic uint32_t refs;
    uint32_t timeout_ms;                /* 0: none */
    _Atomic bool retired;               /* the FIFO let go (timed launches) */
    bool listed;                        /* in aclrt_cuda_timed (its lock) */
    struct aclrt_cuda_launch *timed_prev, *timed_next; /* aclrt_cuda_timed (its lock) */
    struct aclrt_cuda_device *cd;       /* timed: the device it was issued on */
    _Atomic uint64_t start_ns;          /* when the stream reached the kernel (timed launches) */
    struct aclrt_cuda_slot *slot;       /* timed: the done callback's */
    struct aclrt_stream *stream;
    struct aclrt_binary *binary;        /* counted in flight until retired */
    struct aclrt_kernel_failure kernel; /* args: the launch's own copy */
};

/*
 * Timed launches not freed yet, whatever holds them. A lock of its own,
 * never held across a driver call nor while anything else is taken (the
 * driver's callback thread may take it: the last reference of a record).
 */
static pthread_mutex_t aclrt_cuda_timed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aclrt_cuda_launch *aclrt_cuda_timed;

static void aclrt_cuda_timed_unlink_locked(struct aclrt_cuda_launch *l)
{
    if (l->timed_prev != NULL)
        l->timed_prev->timed_next = l->timed_next;
    else
        aclrt_cuda_timed = l->timed_next;
    if (l->timed_next != NULL)
        l->timed_next->timed_prev = l->timed_prev;
    l->listed = false;
}

static void aclrt_cuda_launch_free(struct aclrt_cuda_launch *l)
{
    if (l->timeout_ms != 0) {
        pthread_mutex_lock(&aclrt_cuda_timed_lock);
        if (l->listed)
            aclrt_cuda_timed_unlink_locked(l);
        pthread_mutex_unlock(&aclrt_cuda_timed_lock);
    }
    free(l->kernel.args);
    free(l);
}

/*
 * The backend's close, before the streams' records go: the host functions
 * of timed launches on a lost device never run (the driver skips the work
 * of a context after a sticky error), so their references are taken here,
 * and their count of our host functions in flight; a record the FIFO has
 * let go of is freed, one it still holds goes with it. No other thread
 * runs then (the devices are stopped).
 */
ACLRT_INTERNAL void aclrt_cuda_launches_reclaim(void)
{
    pthread_mutex_lock(&aclrt_cuda_timed_lock);
    struct aclrt_cuda_launch *lost = NULL;
    for (struct aclrt_cuda_launch *l = aclrt_cuda_timed, *next; l != NULL; l = next) {
        next = l->timed_next;
        /* Its GPU's loss, kept for the process (the device's own may be reset by a restart that then failed). */
        if (atomic_load_explicit(&aclrt_cuda.gpu_lost[l->cd->gpu_index], memory_order_relaxed) != ACLRT_CUDA_SUCCESS) {
            aclrt_cuda_timed_unlink_locked(l);
            l->timed_next = lost;
            lost = l;
        }
    }
    pthread_mutex_unlock(&aclrt_cuda_timed_lock);
    for (struct aclrt_cuda_launch *l = lost, *next; l != NULL; l = next) {
        next = l->timed_next;
        /* Acquire: pairs with the retire's release (and the callbacks' acq_rel puts: what they did comes first). */
        uint32_t fifo = atomic_load_explicit(&l->retired, memory_order_acquire) ? 0u : 1u;
        uint32_t skipped = atomic_load_explicit(&l->refs, memory_order_acquire) - fifo;
        /* Release: pairs with the drain's acquire, as aclrt_cuda_host_fn_end's. */
        atomic_fetch_sub_explicit(&aclrt_cuda.host_fns, skipped, memory_order_release);
        if (fifo == 0)
            aclrt_cuda_launch_free(l);
        else
            atomic_store_explicit(&l->refs, 1, memory_order_relaxed); /* the FIFO's: its retire frees it */
    }
}

/* A reference of a timed launch's record goes (any thread: frees memory only). */
static void aclrt_cuda_launch_put(struct aclrt_cuda_launch *l)
{
    /* Acq_rel: the last one sees what the others did with the record (the callbacks' stores). */
    if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
        aclrt_cuda_launch_free(l);
}

/* The FIFO lets go (an ordinary thread): the kernel ran, or never will; its binary counts it done. */
static void aclrt_cuda_launch_retire(struct aclrt_cuda_held *h)
{
    struct aclrt_cuda_launch *l = (struct aclrt_cuda_launch *)(void *)h;
    aclrt_binary_done(l->binary); /* may unload the module (another context may be current then) */
    if (l->timeout_ms == 0) {
        aclrt_cuda_launch_free(l);
    } else {
        /* Release: pairs with the reclaim's acquire. */
        atomic_store_explicit(&l->retired, true, memory_order_release);
        aclrt_cuda_launch_put(l);
    }
}

static void aclrt_cuda_launch_start_cb(void *arg)
{
    struct aclrt_cuda_launch *l = (struct aclrt_cuda_launch *)arg;
    /* Relaxed: the done callback runs after this one on the same driver queue (its order). */
    atomic_store_explicit(&l->start_ns, aclrt_now_ns(), memory_order_relaxed);
    aclrt_cuda_launch_put(l);
    aclrt_cuda_host_fn_end();
}

/* Behind a timed kernel: the timeout, then the task's completion (the record stays in the FIFO). */
static void aclrt_cuda_launch_done_cb(void *arg)
{
    struct aclrt_cuda_launch *l = (struct aclrt_cuda_launch *)arg;
    struct aclrt_cuda_slot *sl = l->slot;
    uint64_t n = l->held.number;
    aclrt_cuda_in_callback = true;
    if (aclrt_now_ns() - atomic_load_explicit(&l->start_ns, memory_order_relaxed) > (uint64_t)l->timeout_ms * 1000000u)
    {
        aclrt_cuda_dump_failed(l->stream, &l->kernel);
        aclrt_stream_fail_kernel(l->stream, l->held.tid, n, ACL_ERROR_RT_AICORE_TIMEOUT, &l->kernel);
    }
    aclrt_cuda_launch_put(l); /* not the last: the FIFO's stays until the word below */
    aclrt_cuda_callback_complete(sl, n);
}

/*
 * ACLRT_TASK_KERNEL: cuLaunchKernel with the packed arguments, then the
 * word write (or, with a timeout, between the start and the done host
 * functions). A failure to issue fails the task (and it completes in
 * order), as every issue does; its record is retired as any other.
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
    /* No parameters: nothing to read or copy (malloc(0) may give NULL, which is no failure here). */
    bool none = !t->u.kernel.owned && t->u.kernel.args_size == 0;
    void *args = none ? NULL : t->u.kernel.owned ? t->u.kernel.args : malloc(t->u.kernel.args_size);
    aclrt_CUresult r = l == NULL || (args == NULL && !none) ? ACLRT_CUDA_ERROR_OUT_OF_MEMORY : aclrt_cuda_begin(sl);
    if (r == ACLRT_CUDA_SUCCESS && !t->u.kernel.owned && !none) /* device memory, read now: the stream's earlier work is done */
        r = aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)args, (aclrt_CUdeviceptr)(uintptr_t)t->u.kernel.args,
                               t->u.kernel.args_size);
    if (ACLRT_UNLIKELY(r != ACLRT_CUDA_SUCCESS)) {
        if (!t->u.kernel.owned && !none)
            free(args);
        free(l);
        aclrt_kernel_task_done(t, false);
        return aclrt_cuda_issue_failed(s, sl, t, n, r);
    }
    t->u.kernel.owned = 0; /* the launch's record owns the copy from here */
    unsigned dump = aclrt_dump_on(); /* the arguments as the kernel gets them, in host memory (dump.h) */
    if (ACLRT_UNLIKELY(dump & (ACLRT_DUMP_DATA | ACLRT_DUMP_ARGS)))
        aclrt_dump_kernel(dump, t->u.kernel.handle, s->device->id, args, t->u.kernel.args_size, false);
    bool timed = t->u.kernel.timeout_ms != 0;
    *l = (struct aclrt_cuda_launch){.held = {.number = n, .tid = t->tid, .retire = aclrt_cuda_launch_retire},
                                    .timeout_ms = t->u.kernel.timeout_ms, .slot = sl, .stream = s,
                                    .binary = t->u.kernel.binary,
                                    .kernel = {t->u.kernel.handle, t->u.kernel.fn, args, t->u.kernel.args_size}};
    l->held.kernel = &l->kernel;
    atomic_init(&l->refs, timed ? 3u : 1u); /* the FIFO's; the start and done callbacks' */
    atomic_init(&l->start_ns, 0);
    atomic_init(&l->retired, false);
    if (timed) { /* listed before its host functions are queued (the reclaim's) */
        l->cd = sl->cd;
        pthread_mutex_lock(&aclrt_cuda_timed_lock);
        l->timed_next = aclrt_cuda_timed;
        if (aclrt_cuda_timed != NULL)
            aclrt_cuda_timed->timed_prev = l;
        aclrt_cuda_timed = l;
        l->listed = true;
        pthread_mutex_unlock(&aclrt_cuda_timed_lock);
    }
    t->u.kernel.binary = NULL; /* counted done when the record is retired */
    /* Known to a failure report before the kernel can fail; what completed before goes after the driver calls. */
    struct aclrt_cuda_held *done = aclrt_cuda_hold(sl, &l->held);
    if (timed && (r = aclrt_cuda_host_fn(sl->cu, aclrt_cuda_launch_start_cb, l)) != ACLRT_CUDA_SUCCESS)
        aclrt_cuda_launch_put(l); /* the start callback's */
    struct aclrt_cuda_function *cf = aclrt_cuda_function_of(t->u.kernel.fn); /* module_function's record */
    aclrt_CUfunction f = NULL; /* on the stream's GPU */
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_function_on(l->binary, cf, sl->cd->gpu_index, &f);
    size_t size = aclrt_cuda_function_bytes(cf, l->kernel.args_size); /* the kernel's, not the block's tail */
    void *extra[] = {(void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, args,
                     (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, &size,
                     (void *)(uintptr_t)ACLRT_CU_LAUNCH_PARAM_END_AS_INT};
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cu->cuLaunchKernel(f, t->u32, 1, 1, cf->block, 1, 1, 0, sl->cu, NULL,
                                     size != 0 ? extra : NULL); /* no parameters: no buffer */
    int rc;
    if (ACLRT_LIKELY(r == ACLRT_CUDA_SUCCESS && !timed)) {
        rc = aclrt_cuda_complete_after(s, sl, t, r);
    } else if (r == ACLRT_CUDA_SUCCESS && (r = aclrt_cuda_host_fn(sl->cu, aclrt_cuda_launch_done_cb, l)) ==
                                              ACLRT_CUDA_SUCCESS) {
        aclrt_cuda_issued(sl, n);
        rc = ACLRT_TASK_ISSUED;
    } else {
        /*
         * Not issued whole: the task fails and completes in order (its word
         * write follows, or the device is lost); the record is retired then.
         */
        if (timed)
            aclrt_cuda_launch_put(l); /* the done callback's: not queued */
        rc = aclrt_cuda_issue_failed_kernel(s, sl, t, n, r, &l->kernel);
    }
    aclrt_cuda_held_release(done);
    return rc;
}

static const struct aclrt_task_kind aclrt_cuda_kind_kernel =
    ACLRT_CUDA_KIND(ACLRT_TASK_KERNEL, "kernel (cuLaunchKernel)", aclrt_cuda_kernel_run);

#endif /* ACLRT_BACKENDS_CUDA_CUDA_KERNEL_H */
