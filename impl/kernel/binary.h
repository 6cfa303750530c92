/*
 * impl/kernel/binary.h - kernel binaries and their functions: the handles,
 * loading (from a file, from memory), looking functions up by name,
 * unloading, and launches in flight. The queries are binary_query.h's.
 *
 * What a binary is belongs to the backend: the core loads nothing itself
 * but calls the backend's module hooks (backends/backend.h) for every
 * backend. A binary holds the backend's module; a function the backend's
 * handle for the kernel (in `fn`: on the host backend, where a binary is a
 * shared object of host kernels (backends/host/host_module.h), the host
 * kernel the core's kernel task runs; on the cuda backend the driver's
 * function, which only that backend's kernel task uses); a global the
 * backend's address. The core checks the load options and the file, keeps
 * the handles, the lifetimes, the launches in flight and the arguments.
 *
 * Lifetimes. Binaries, functions and args handles (kernel_args.h) live in
 * handle tables, so a stale or garbage handle is an error code.
 * aclrtBinaryUnLoad ends the binary's handle, its functions' and their args
 * handles' at once; the module is unloaded, and the slot freed, once no
 * launch of it is in flight: the last queued launch has run (or was
 * discarded).
 *
 * Launches in flight are counted without a shared counter, which would
 * move between the launching thread and the executor at every launch: a
 * launch adds 1 to `uses` in its thread's shard, and the task, when done,
 * adds 1 to `dones` in its thread's shard (a launch that gives up counts
 * itself done). Both only grow, from one life of the slot to the next, and
 * every done follows its use; so when the sum of `dones` read first equals
 * the sum of `uses` read after it, nothing was in flight in between. A
 * launch counts its use and then checks its function's generation again; an
 * unload retires the function, then marks the binary unloaded and sums
 * (seq_cst on both sides): either the launch sees the function retired and
 * gives up, or the unload's sum includes the launch, whose task will close
 * the binary when it is done. Whoever adds a done to an unloaded binary
 * sums again; the one that sees the sums equal closes it.
 *
 * The function lists (and the args handles of each function) are guarded
 * by one lock: loading, lookups by name, unloading and args initialisation
 * are not the launch path, which takes no lock.
 */
#ifndef ACLRT_IMPL_KERNEL_BINARY_H
#define ACLRT_IMPL_KERNEL_BINARY_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"

#include <sys/stat.h>

struct aclrt_function;
struct aclrt_args;

#define ACLRT_BINARY_SHARDS 32 /* launching and executing threads spread over them by their serial */

/* One counter on a cache line of its own. */
struct ACLRT_ALIGNED(ACLRT_CACHELINE) aclrt_binary_shard {
    _Atomic uint64_t n;
};

enum aclrt_binary_state {
    ACLRT_BINARY_LOADED = 0,
    ACLRT_BINARY_UNLOADED = 1, /* the handles are dead; closed once no launch is in flight */
    ACLRT_BINARY_CLOSING = 2,  /* elected to close (aclrt_binary_check_close) */
};

/*
 * A loaded binary. Invariants: `module` is loaded from the load until the
 * thread that moves `state` from UNLOADED to CLOSING unloads it and frees
 * the slot; sum(dones) <= sum(uses) at every moment, both only grow (the
 * shards are the slot's, kept from one life to the next).
 */
struct aclrt_binary {
    struct aclrt_slot hdr;
    _Atomic(void *) module;             /* the backend's module */
    const struct aclrt_backend *backend; /* the backend whose module it is */
    _Atomic uint32_t state;             /* enum aclrt_binary_state */
    struct aclrt_binary_shard *uses;    /* [ACLRT_BINARY_SHARDS] launches counted */
    struct aclrt_binary_shard *dones;   /* [ACLRT_BINARY_SHARDS] launches done, discarded or given up */
    uint64_t size;                      /* bytes of the file or data it was loaded from */
    char *path;                         /* the real path of its file (owned); NULL: loaded from data */
    aclrtOpExceptionCallback on_exception; /* aclrtBinarySetExceptionCallback's (aclrt_kernels_lock) */
    void *on_exception_data;
    struct aclrt_function *functions;   /* the functions looked up in it (aclrt_kernels_lock) */
};

/*
 * A function of a binary. `binary` and `fn` are read by launches without a
 * lock (atomics, stored with release before the slot is published); the
 * name and the lists only under aclrt_kernels_lock.
 */
struct aclrt_function {
    struct aclrt_slot hdr;
    _Atomic(struct aclrt_binary *) binary;
    _Atomic(aclrtxHostKernel) fn;
    size_t code_size;               /* the kernel's code size, as the backend says (aclrtGetFunctionSize) */
    char *name;                     /* owned */
    struct aclrt_function *next;    /* in its binary's list */
    struct aclrt_args *args;        /* the args handles made for it (kernel_args.h) */
};

static struct aclrt_table aclrt_binaries = ACLRT_TABLE_INIT(ACLRT_KIND_BINARY, struct aclrt_binary, "binary");
static struct aclrt_table aclrt_functions = ACLRT_TABLE_INIT(ACLRT_KIND_FUNCTION, struct aclrt_function, "function");

/* Guards the function lists of binaries and the args lists of functions. */
static pthread_mutex_t aclrt_kernels_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * What unloading a function does to the args handles made for it
 * (kernel_args.h sets it when it is first used; NULL: none were made).
 */
static void (*aclrt_function_args_release)(struct aclrt_function *f);

/* ------------------------------------------------------------------------
 * Launches in flight
 * ------------------------------------------------------------------------ */

/* The calling thread's shard (a serial handed out on first use). */
static _Atomic uint32_t aclrt_binary_threads;
static _Thread_local uint32_t aclrt_binary_shard_of_thread ACLRT_TLS_MODEL;

ACLRT_INLINE uint32_t aclrt_binary_shard(void)
{
    if (ACLRT_UNLIKELY(aclrt_binary_shard_of_thread == 0))
        aclrt_binary_shard_of_thread = atomic_fetch_add_explicit(&aclrt_binary_threads, 1, memory_order_relaxed) + 1;
    return aclrt_binary_shard_of_thread % ACLRT_BINARY_SHARDS;
}

/* Count a launch as in flight (before checking that its function is still alive). */
ACLRT_INLINE void aclrt_binary_use(struct aclrt_binary *b)
{
    /* Seq_cst: pairs with the unload's retire-then-sum (module comment). */
    atomic_fetch_add_explicit(&b->uses[aclrt_binary_shard()].n, 1, memory_order_seq_cst);
}

static void aclrt_binary_close(struct aclrt_binary *b);

/* An unloaded binary with nothing in flight is closed, by exactly one of the threads that see it so. */
static ACLRT_NOINLINE void aclrt_binary_check_close(struct aclrt_binary *b)
{
    uint64_t done = 0, used = 0;
    /* Seq_cst (all): dones first, then uses; pairs with the uses' and dones' increments. */
    for (int i = 0; i < ACLRT_BINARY_SHARDS; i++)
        done += atomic_load_explicit(&b->dones[i].n, memory_order_seq_cst);
    for (int i = 0; i < ACLRT_BINARY_SHARDS; i++)
        used += atomic_load_explicit(&b->uses[i].n, memory_order_seq_cst);
    uint32_t unloaded = ACLRT_BINARY_UNLOADED;
    /* Acq_rel: the closer sees what every launch did before its done (acquire of the sums too). */
    if (done == used && atomic_compare_exchange_strong_explicit(&b->state, &unloaded, ACLRT_BINARY_CLOSING,
                                                                 memory_order_acq_rel, memory_order_relaxed))
        aclrt_binary_close(b);
}

/* A launch is done (run, discarded, or given up before it was queued). */
ACLRT_INLINE void aclrt_binary_done(struct aclrt_binary *b)
{
    /* Seq_cst: pairs with the unload's state store and sum: one of the two sees the other. */
    atomic_fetch_add_explicit(&b->dones[aclrt_binary_shard()].n, 1, memory_order_seq_cst);
    if (ACLRT_UNLIKELY(atomic_load_explicit(&b->state, memory_order_seq_cst) == ACLRT_BINARY_UNLOADED))
        aclrt_binary_check_close(b);
}

/* Unload the module and free the slot (retired by the unload before); the state was won by the caller. */
static void aclrt_binary_close(struct aclrt_binary *b)
{
    void *module = atomic_exchange_explicit(&b->module, NULL, memory_order_relaxed);
    if (module != NULL)
        b->backend->module_unload(module);
    free(b->path);
    b->path = NULL;
    aclrt_table_free(&aclrt_binaries, &b->hdr);
}

/* The unload's side (the binary and its functions retired): mark it unloaded, close it if nothing is in flight. */
static void aclrt_binary_end(struct aclrt_binary *b)
{
    /* Seq_cst: after the retires; pairs with aclrt_binary_use's increment and aclrt_binary_done's load. */
    atomic_store_explicit(&b->state, ACLRT_BINARY_UNLOADED, memory_order_seq_cst);
    aclrt_binary_check_close(b);
}

/* ------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------ */

static struct aclrt_binary *aclrt_binary_lookup(const void *h)
{
    return (struct aclrt_binary *)aclrt_table_lookup(&aclrt_binaries, h);
}

ACLRT_INTERNAL struct aclrt_function *aclrt_function_lookup(const void *h)
{
    return (struct aclrt_function *)aclrt_table_lookup(&aclrt_functions, h);
}

/*
 * The live binary a handle names, with aclrt_kernels_lock taken: the error
 * every call gives for a NULL, stale or garbage handle, or for one unloaded
 * meanwhile ("was unloaded" and `already`); on failure the lock is not held.
 */
ACLRT_INTERNAL aclError aclrt_binary_lock_live(const void *h, const char *already, struct aclrt_binary **out)
{
    if (h == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "binHandle is NULL");
    *out = aclrt_binary_lookup(h);
    if (*out == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "binHandle %p is not a loaded binary (unloaded, stale or garbage)",
                          h);
    pthread_mutex_lock(&aclrt_kernels_lock);
    if (aclrt_binary_lookup(h) == *out)
        return ACL_SUCCESS;
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "binHandle %p was unloaded%s", h, already);
}

/* The error for a function handle that is NULL (`null_code`), stale or garbage. */
static aclError aclrt_function_bad(const void *h, aclError null_code)
{
    if (h == NULL)
        return aclrt_fail(null_code, "funcHandle is NULL");
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                      "funcHandle %p is not a function of a loaded binary (unloaded, stale or garbage)", h);
}

/* The live function a handle names, without the lock (what it reads are atomics). */
ACLRT_INTERNAL aclError aclrt_function_resolve(const void *h, aclError null_code, struct aclrt_function **out)
{
    *out = h != NULL ? aclrt_function_lookup(h) : NULL;
    return *out != NULL ? ACL_SUCCESS : aclrt_function_bad(h, null_code);
}

/* The live function a handle names, with aclrt_kernels_lock taken; on failure the lock is not held. */
ACLRT_INTERNAL aclError aclrt_function_lock_live(const void *h, aclError null_code, struct aclrt_function **out)
{
    aclError rc = aclrt_function_resolve(h, null_code, out);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_kernels_lock);
    if (aclrt_function_lookup(h) == *out)
        return ACL_SUCCESS;
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "funcHandle %p was unloaded", h);
}

/*
 * For a launch: the function's kernel, and its binary counted in flight
 * (the launch's task counts it done when it is done). ACL_ERROR_RT_INVALID_HANDLE
 * if the handle is not a live function, also when another thread unloads
 * its binary at this moment.
 */
ACLRT_INLINE aclError aclrt_function_acquire(aclrtFuncHandle h, aclrtxHostKernel *fn, struct aclrt_binary **bin)
{
    struct aclrt_function *f = aclrt_function_lookup(h);
    if (ACLRT_LIKELY(f != NULL)) {
        /* The generation the handle names (aclrt_table_lookup matched it). */
        uint32_t life = (uint32_t)((((uint64_t)(uintptr_t)h >> ACLRT_HANDLE_INDEX_BITS) & ACLRT_HANDLE_GEN_MASK) << 1) | 1u;
        struct aclrt_binary *b = atomic_load_explicit(&f->binary, memory_order_relaxed);
        *fn = atomic_load_explicit(&f->fn, memory_order_relaxed);
        aclrt_binary_use(b);
        /*
         * Acquire fence: if the loads above read a later life's fields (the
         * slot was unloaded and reused meanwhile: they are stored with
         * release), the generation read below is that later one too. Seq_cst
         * load: pairs with the unload's retire (module comment).
         */
        atomic_thread_fence(memory_order_acquire);
        if (ACLRT_LIKELY(atomic_load_explicit(&f->hdr.generation, memory_order_seq_cst) == life)) {
            *bin = b;
            return ACL_SUCCESS;
        }
        aclrt_binary_done(b); /* given up: counted done, and the unload may close it now */
    }
    return aclrt_function_bad(h, ACL_ERROR_INVALID_PARAM);
}

/* The backend's handle of a function, as module_function gave it (a host kernel's converts as dlsym's do, POSIX). */
ACLRT_INLINE void *aclrt_function_backend_handle(aclrtxHostKernel fn)
{
    void *function;
    memcpy(&function, &fn, sizeof function);
    return function;
}

/*
 * A launch's argument block of `size` bytes against its kernel's
 * parameters (fn: the function's backend handle, b its binary, counted in
 * flight): refused with the backend's code and message where the backend
 * knows the kernel's layout and the block is too short for it; any block
 * where it does not (the host backend).
 */
ACLRT_INLINE aclError aclrt_function_args_fit(const struct aclrt_binary *b, aclrtxHostKernel fn, uint32_t size)
{
    aclError (*fits)(void *function, uint32_t size) = b->backend->function_args;
    if (ACLRT_LIKELY(fits == NULL))
        return ACL_SUCCESS;
    return fits(aclrt_function_backend_handle(fn), size);
}

/* A function's entry (aclrtGetFunctionAddr): the backend's handle, or what the backend says it stands for. */
ACLRT_INLINE void *aclrt_function_entry(const struct aclrt_function *f)
{
    void *function = aclrt_function_backend_handle(atomic_load_explicit(&f->fn, memory_order_relaxed));
    const struct aclrt_backend *backend = atomic_load_explicit(&f->binary, memory_order_relaxed)->backend;
    return backend->function_entry != NULL ? backend->function_entry(function) : function;
}

/* ------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------ */

/*
 * The load options, checked as the runtime checks them [src]: a NULL
 * `options` array in a non-NULL set, a lazy-load value other than 0 or 1, a
 * magic when loading from a file or one of no core type, a CPU kernel mode
 * other than 0/1 (file) or 2 (data), an unknown type: ACL_ERROR_RT_PARAM_INVALID.
 * Valid ones change nothing: the backend loads a binary whole (host_module.h:
 * symbols are bound at load).
 */
static aclError aclrt_binary_check_options(const aclrtBinaryLoadOptions *options, bool from_file)
{
    if (options == NULL)
        return ACL_SUCCESS;
    if (options->options == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "options->options is NULL");
    for (size_t i = 0; i < options->numOpt; i++) {
        const aclrtBinaryLoadOption *o = &options->options[i];
        switch ((int)o->type) {
        case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
            if (o->value.isLazyLoad > 1)
                return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "options[%zu]: isLazyLoad %u is not 0 or 1", i,
                                  o->value.isLazyLoad);
            break;
        case ACL_RT_BINARY_LOAD_OPT_MAGIC:
            if (from_file)
                return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                                  "options[%zu]: ACL_RT_BINARY_LOAD_OPT_MAGIC is for loading from data", i);
            if (o->value.magic != ACL_RT_BINARY_MAGIC_ELF_AICORE && o->value.magic != ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE &&
                o->value.magic != ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE)
                return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "options[%zu]: magic %#x is none of ACL_RT_BINARY_MAGIC_*",
                                  i, o->value.magic);
            break;
        case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
            if (from_file ? (o->value.cpuKernelMode != 0 && o->value.cpuKernelMode != 1)
                          : o->value.cpuKernelMode != 2)
                return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "options[%zu]: cpuKernelMode %d is not %s", i,
                                  o->value.cpuKernelMode, from_file ? "0 or 1 (loading from a file)"
                                                                    : "2 (loading from data)");
            break;
        default:
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "options[%zu]: unknown option type %d", i, (int)o->type);
        }
    }
    return ACL_SUCCESS;
}

/* The slot's shard counters: made with the slot's first life, kept for all its lives (never freed). */
static bool aclrt_binary_shards(struct aclrt_binary *b)
{
    if (b->uses != NULL)
        return true;
    size_t bytes = 2 * ACLRT_BINARY_SHARDS * sizeof(struct aclrt_binary_shard);
    struct aclrt_binary_shard *shards = (struct aclrt_binary_shard *)aligned_alloc(ACLRT_CACHELINE, bytes);
    if (shards == NULL)
        return false;
    for (int i = 0; i < 2 * ACLRT_BINARY_SHARDS; i++)
        atomic_init(&shards[i].n, 0);
    b->uses = shards;
    b->dones = shards + ACLRT_BINARY_SHARDS;
    return true;
}

/* Publish a new binary around a loaded module (and its file's real path, which it takes; NULL: from data). */
static aclError aclrt_binary_publish(void *module, const struct aclrt_backend *backend, uint64_t size, char *path,
                                     aclrtBinHandle *binHandle)
{
    struct aclrt_binary *b = (struct aclrt_binary *)aclrt_table_alloc(&aclrt_binaries);
    if (b != NULL && !aclrt_binary_shards(b)) {
        aclrt_table_free(&aclrt_binaries, &b->hdr);
        b = NULL;
    }
    if (b == NULL) {
        backend->module_unload(module);
        free(path);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no room for another binary");
    }
    b->path = path;
    b->on_exception = NULL;
    b->on_exception_data = NULL;
    atomic_store_explicit(&b->module, module, memory_order_relaxed);
    b->backend = backend;
    b->size = size;
    b->functions = NULL;
    atomic_store_explicit(&b->state, ACLRT_BINARY_LOADED, memory_order_relaxed); /* published below */
    *binHandle = aclrt_table_publish(&aclrt_binaries, &b->hdr);
    return ACL_SUCCESS;
}

/* The backend that loads binaries: the runtime starts to know it. */
static aclError aclrt_binary_backend(const struct aclrt_backend **backend)
{
    aclError rc = aclrt_runtime_start();
    *backend = rc == ACL_SUCCESS ? aclrt_rt.backend : NULL;
    return rc;
}

ACLRT_API aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                           aclrtBinHandle *binHandle)
{
    ACLRT_ENTER();
    if (binPath == NULL || binHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", binPath == NULL ? "binPath" : "binHandle (output)");
    aclError rc = aclrt_binary_check_options(options, true);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The real path: a relative one is the caller's working directory's, and never a library search. */
    char *real = realpath(binPath, NULL);
    if (real == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "binPath %s cannot be accessed: %s", binPath, strerror(errno));
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "binPath %s is not a file", binPath);
        free(real);
        return rc;
    }
    const struct aclrt_backend *backend;
    void *module = NULL;
    if ((rc = aclrt_binary_backend(&backend)) == ACL_SUCCESS)
        rc = backend->module_load(real, binPath, NULL, (size_t)st.st_size, &module);
    if (rc != ACL_SUCCESS) {
        free(real);
        return rc;
    }
    return aclrt_binary_publish(module, backend, (uint64_t)st.st_size, real, binHandle);
}

/* aclrtBinaryLoadFromData, for it and for aclrtBinaryLoad (binary_data.h). */
ACLRT_INTERNAL aclError aclrt_binary_load_data(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                               aclrtBinHandle *binHandle)
{
    if (data == NULL || binHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", data == NULL ? "data" : "binHandle (output)");
    if (length == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "length is 0");
    aclError rc = aclrt_binary_check_options(options, false);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_backend *backend;
    void *module = NULL;
    if ((rc = aclrt_binary_backend(&backend)) != ACL_SUCCESS ||
        (rc = backend->module_load(NULL, "the data", data, length, &module)) != ACL_SUCCESS)
        return rc;
    return aclrt_binary_publish(module, backend, length, NULL, binHandle);
}

ACLRT_API aclError aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                           aclrtBinHandle *binHandle)
{
    ACLRT_ENTER();
    return aclrt_binary_load_data(data, length, options, binHandle);
}

/* ------------------------------------------------------------------------
 * Functions
 * ------------------------------------------------------------------------ */

/* aclrtBinaryGetFunction, for it and for the lookups by address (symbol.h). */
ACLRT_INTERNAL aclError aclrt_binary_get_function(const aclrtBinHandle binHandle, const char *kernelName,
                                                  aclrtFuncHandle *funcHandle)
{
    if (kernelName == NULL || funcHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", kernelName == NULL ? "kernelName" : "funcHandle (output)");
    struct aclrt_binary *b;
    aclError rc = aclrt_binary_lock_live(binHandle, "", &b);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The same name gives the same handle, as long as the binary is loaded. */
    for (struct aclrt_function *f = b->functions; f != NULL; f = f->next)
        if (strcmp(f->name, kernelName) == 0) {
            *funcHandle = aclrt_slot_handle(&aclrt_functions, &f->hdr);
            pthread_mutex_unlock(&aclrt_kernels_lock);
            return ACL_SUCCESS;
        }
    size_t code_size = 0;
    void *addr = NULL;
    rc = b->backend->module_function(atomic_load_explicit(&b->module, memory_order_relaxed), kernelName, &addr,
                                     &code_size);
    if (rc != ACL_SUCCESS) {
        pthread_mutex_unlock(&aclrt_kernels_lock);
        return rc;
    }
    char *name = strdup(kernelName);
    struct aclrt_function *f = name != NULL ? (struct aclrt_function *)aclrt_table_alloc(&aclrt_functions) : NULL;
    if (f == NULL) {
        pthread_mutex_unlock(&aclrt_kernels_lock);
        free(name);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no room for another function");
    }
    aclrtxHostKernel fn;
    memcpy(&fn, &addr, sizeof fn); /* the backend's handle; a host kernel's converts as dlsym's do (POSIX) */
    /* Release (both): see aclrt_function_acquire, which reads them without the lock. */
    atomic_store_explicit(&f->binary, b, memory_order_release);
    atomic_store_explicit(&f->fn, fn, memory_order_release);
    f->code_size = code_size;
    f->name = name;
    f->args = NULL;
    f->next = b->functions;
    b->functions = f;
    *funcHandle = aclrt_table_publish(&aclrt_functions, &f->hdr);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                          aclrtFuncHandle *funcHandle)
{
    ACLRT_ENTER();
    return aclrt_binary_get_function(binHandle, kernelName, funcHandle);
}

/* End a binary (the lock held, its slot alive): its functions and their args handles first, then its handle. */
static void aclrt_binary_unload_locked(struct aclrt_binary *b)
{
    for (struct aclrt_function *f = b->functions, *next; f != NULL; f = next) {
        next = f->next;
        if (f->args != NULL && aclrt_function_args_release != NULL)
            aclrt_function_args_release(f);
        aclrt_table_retire(&f->hdr);
        free(f->name);
        f->name = NULL;
        aclrt_table_free(&aclrt_functions, &f->hdr);
    }
    b->functions = NULL;
    aclrt_table_retire(&b->hdr);
}

ACLRT_API aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
    ACLRT_ENTER();
    struct aclrt_binary *b;
    aclError rc = aclrt_binary_lock_live(binHandle, " already", &b);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_binary_unload_locked(b);
    pthread_mutex_unlock(&aclrt_kernels_lock);
    aclrt_binary_end(b); /* closed now, or by the last launch in flight */
    return ACL_SUCCESS;
}

/* aclFinalize: every binary still loaded is unloaded (the streams are gone: no launch holds one any more). */
ACLRT_INTERNAL void aclrt_binary_release_all(void)
{
    ACLRT_TABLE_FOREACH(&aclrt_binaries, struct aclrt_binary, b)
    {
        pthread_mutex_lock(&aclrt_kernels_lock);
        bool alive = atomic_load_explicit(&b->hdr.generation, memory_order_acquire) & 1u;
        if (alive)
            aclrt_binary_unload_locked(b);
        pthread_mutex_unlock(&aclrt_kernels_lock);
        if (alive)
            aclrt_binary_end(b);
    }
}

#endif /* ACLRT_IMPL_KERNEL_BINARY_H */
